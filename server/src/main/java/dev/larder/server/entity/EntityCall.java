package dev.larder.server.entity;

import dev.larder.server.answer.Answer;
import dev.larder.server.answer.HttpResponses;
import dev.larder.server.answer.Responder;
import dev.larder.server.config.RejectReason;
import dev.larder.server.context.ServerContext;
import dev.larder.server.offload.BatchableTask;
import dev.larder.storage.Batch;
import dev.larder.storage.MemoryLookup;
import dev.larder.storage.StoreException;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * One GET, PUT or DELETE of {@code /v0/entity}. Holds only plain byte arrays (the request buffer was copied and
 * released on the event loop), so neither running nor rejecting it has a buffer to release.
 */
public final class EntityCall extends BatchableTask {

    public enum Operation {
        GET("get"), PUT("put"), DELETE("delete");

        final String meterName;

        Operation(String meterName) {
            this.meterName = meterName;
        }
    }

    private final Responder connection;
    private final ServerContext server;
    private final Operation operation;
    private final byte[] key;
    private final byte[] value;
    private final long queuedAt;

    public EntityCall(Responder connection, ServerContext server, Operation operation, byte[] key, byte[] value) {
        this.connection = connection;
        this.server = server;
        this.operation = operation;
        this.key = key;
        this.value = value;
        this.queuedAt = System.nanoTime();
    }

    /** A PUT or DELETE: work that {@link #executeWrites} can fold into one storage batch. */
    boolean isWrite() {
        return operation != Operation.GET;
    }

    /** Consecutive GETs are looked up together, consecutive PUTs and DELETEs written together. */
    @Override
    protected boolean batchesWith(BatchableTask first) {
        return first instanceof EntityCall call && call.isWrite() == isWrite();
    }

    @Override
    @SuppressWarnings("unchecked")
    protected void executeBatch(List<BatchableTask> batch) {
        // batchesWith admits only EntityCalls into a batch that an EntityCall starts.
        List<EntityCall> calls = (List<EntityCall>) (List<?>) batch;
        if (isWrite()) {
            executeWrites(calls);
        } else {
            executeReads(calls);
        }
    }

    /**
     * Runs the GETs in {@code calls} (taken from one worker's queue) as one multi-key lookup: one JNI crossing and
     * RocksDB's batched MultiGet instead of one lookup each. Skips and refuses calls as {@link #executeWrites} does.
     */
    static void executeReads(List<EntityCall> calls) {
        executeTogether(calls, EntityCall::readAll);
    }

    private static void readAll(List<EntityCall> claimed, long started) {
        List<byte[]> keys = new ArrayList<>(claimed.size());
        for (EntityCall call : claimed) {
            keys.add(call.key);
        }
        ServerContext server = claimed.get(0).server;
        List<byte[]> values = null;
        RuntimeException failure = null;
        try {
            values = server.store.getAll(keys);
        } catch (RuntimeException e) {
            failure = e;
        }
        long took = System.nanoTime() - started;
        for (int i = 0; i < claimed.size(); i++) {
            EntityCall call = claimed.get(i);
            server.observer.storageCall(Operation.GET.meterName, took, failure == null);
            Answer response;
            if (failure != null) {
                response = call.failure(failure);
            } else {
                response = HttpResponses.valueOrNotFound(values.get(i));
            }
            call.connection.respond(response, started);
        }
    }

    @Override
    protected void execute() {
        long started = System.nanoTime();
        if (expired(started)) {
            return;
        }
        Answer response;
        boolean success = false;
        try {
            response = switch (operation) {
                case GET -> HttpResponses.valueOrNotFound(server.store.get(key));
                case PUT -> {
                    server.store.put(key, value);
                    yield success();
                }
                case DELETE -> {
                    server.store.delete(key);
                    yield success();
                }
            };
            success = true;
        } catch (RuntimeException e) {
            response = failure(e);
        }
        server.observer.storageCall(operation.meterName, System.nanoTime() - started, success);
        connection.respond(response, started);
    }

    /**
     * What an event loop may run itself: a GET that memory answers (or, with {@code --miss-reads loop}, one it reads
     * from a table file while such reads are fast), a PUT or DELETE that no write stall holds back and no fsync
     * follows. Anything else is left for a worker, which may wait.
     */
    @Override
    protected boolean executeIfQuick() {
        long started = System.nanoTime();
        Answer response;
        boolean success = false;
        try {
            switch (operation) {
                case GET -> {
                    MemoryLookup lookup = server.store.getFromMemory(key);
                    if (lookup.known()) {
                        response = HttpResponses.valueOrNotFound(lookup.value());
                    } else if (server.loopMissReads.mayRead(started)) {
                        response = HttpResponses.valueOrNotFound(readMiss());
                    } else {
                        return false;
                    }
                }
                case PUT -> {
                    if (!server.store.putWithoutWaiting(key, value)) {
                        return false;
                    }
                    response = success();
                }
                default -> {
                    if (!server.store.deleteWithoutWaiting(key)) {
                        return false;
                    }
                    response = success();
                }
            }
            success = true;
        } catch (RuntimeException e) {
            response = failure(e);
        }
        server.observer.queueWait(started - queuedAt);
        server.observer.storageCall(operation.meterName, System.nanoTime() - started, success);
        connection.respond(response, started);
        return true;
    }

    /** The loop's own read of a GET the block cache missed ({@code --miss-reads loop}), timed for its back-off. */
    private byte[] readMiss() {
        long read = System.nanoTime();
        try {
            return server.store.get(key);
        } finally {
            long now = System.nanoTime();
            server.observer.missReadOnLoop(server.loopMissReads.took(now - read, now));
        }
    }

    /**
     * What an event loop may run itself of a run of like calls: consecutive PUTs and DELETEs as one storage batch
     * that no write stall holds back and no fsync follows. GETs are not looked up together here: each is answered
     * from memory or left for a worker on its own ({@link #executeIfQuick}).
     */
    @Override
    @SuppressWarnings("unchecked")
    protected boolean executeBatchIfQuick(List<BatchableTask> batch) {
        if (!isWrite()) {
            return false;
        }
        List<EntityCall> calls = (List<EntityCall>) (List<?>) batch;
        Batch writes = toBatch(calls);
        long started = System.nanoTime();
        RuntimeException failure = null;
        try {
            if (!server.store.writeWithoutWaiting(writes)) {
                return false;
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        for (EntityCall call : calls) {
            // A worker records this when it takes the call (expired); these were never queued at a worker.
            server.observer.queueWait(started - call.queuedAt);
        }
        answerWrites(calls, started, failure);
        return true;
    }

    /**
     * Runs the writes in {@code calls} (each {@link #isWrite()}, taken from one worker's queue in arrival order) as
     * one storage batch: one log append, and with {@code --sync} one fsync, for all of them. Each is answered only
     * after the whole batch is durable, so an acknowledgement means what it means for a single write. Calls already
     * claimed elsewhere (discard-oldest, shutdown) are skipped; calls that waited past {@code --max-queue-delay} are
     * refused as they would be alone.
     */
    static void executeWrites(List<EntityCall> calls) {
        executeTogether(calls, EntityCall::writeAll);
    }

    private static void writeAll(List<EntityCall> claimed, long started) {
        Batch batch = toBatch(claimed);
        RuntimeException failure = null;
        try {
            claimed.get(0).server.store.write(batch);
        } catch (RuntimeException e) {
            failure = e;
        }
        answerWrites(claimed, started, failure);
    }

    /** The storage batch of {@code calls}, each a PUT or DELETE, in their order. */
    private static Batch toBatch(List<EntityCall> calls) {
        Batch batch = new Batch();
        for (EntityCall call : calls) {
            if (call.operation == Operation.PUT) {
                batch.put(call.key, call.value);
            } else {
                batch.delete(call.key);
            }
        }
        return batch;
    }

    /** Answers each of {@code calls}, written together from {@code started} until now: success or {@code failure}. */
    private static void answerWrites(List<EntityCall> calls, long started, RuntimeException failure) {
        long took = System.nanoTime() - started;
        ServerContext server = calls.get(0).server;
        for (EntityCall call : calls) {
            server.observer.storageCall(call.operation.meterName, took, failure == null);
            call.connection.respond(failure == null ? call.success() : call.failure(failure), started);
        }
    }

    /** A storage call made once for a whole run of claimed calls, which all started at {@code started}. */
    private interface RunCall {
        void execute(List<EntityCall> claimed, long started);
    }

    /**
     * A lone call runs as itself. Otherwise {@code together} gets the calls this run may execute: those not already
     * claimed elsewhere (discard-oldest, shutdown) and not refused for waiting past {@code --max-queue-delay} (which
     * answers them 503); it is not called when none is left.
     */
    private static void executeTogether(List<EntityCall> calls, RunCall together) {
        if (calls.size() == 1) {
            calls.get(0).run();
            return;
        }
        long started = System.nanoTime();
        List<EntityCall> live = new ArrayList<>(calls.size());
        for (EntityCall call : calls) {
            if (call.claim() && !call.expired(started)) {
                live.add(call);
            }
        }
        if (!live.isEmpty()) {
            together.execute(live, started);
        }
    }

    /** Records the queue wait; answers 503 and returns {@code true} when it exceeded {@code --max-queue-delay}. */
    private boolean expired(long started) {
        server.observer.queueWait(started - queuedAt);
        if (server.queueDelayExceeded(queuedAt, started)) {
            server.observer.rejected(server.options.rejection(), RejectReason.QUEUE_DELAY);
            connection.respond(HttpResponses.unavailable(RejectReason.QUEUE_DELAY), started);
            return true;
        }
        return false;
    }

    private Answer success() {
        return operation == Operation.PUT ? HttpResponses.CREATED : HttpResponses.ACCEPTED;
    }

    private Answer failure(RuntimeException e) {
        if (e instanceof StoreException se) {
            server.storageError("storage failure on " + operation + ": " + se.getMessage(), se);
            return HttpResponses.text(se.noSpace() ? HttpResponseStatus.INSUFFICIENT_STORAGE
                    : HttpResponseStatus.INTERNAL_SERVER_ERROR, "storage failure: " + se.getMessage());
        }
        server.storageError("unexpected failure on " + operation + ": " + e, e);
        return HttpResponses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + e);
    }

    @Override
    protected void rejected(RejectReason reason) {
        connection.respond(HttpResponses.unavailable(reason), 0);
    }
}
