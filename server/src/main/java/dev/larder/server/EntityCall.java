package dev.larder.server;

import dev.larder.storage.StoreException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * One GET, PUT or DELETE of {@code /v0/entity}. Holds only plain byte arrays (the request buffer was copied and
 * released on the event loop), so neither running nor rejecting it has a buffer to release.
 */
final class EntityCall extends WorkerTask {

    enum Operation { GET, PUT, DELETE }

    private final RequestDispatcher connection;
    private final ServerContext server;
    private final Operation operation;
    private final byte[] key;
    private final byte[] value;
    private final long queuedAt;

    EntityCall(RequestDispatcher connection, ServerContext server, Operation operation, byte[] key, byte[] value) {
        this.connection = connection;
        this.server = server;
        this.operation = operation;
        this.key = key;
        this.value = value;
        this.queuedAt = System.nanoTime();
    }

    @Override
    protected void execute() {
        long started = System.nanoTime();
        server.observer.queueWait(started - queuedAt);
        if (server.queueDelayExceeded(queuedAt, started)) {
            server.observer.rejected(server.options.rejection(), RejectReason.QUEUE_DELAY);
            connection.respond(HttpResponses.unavailable(RejectReason.QUEUE_DELAY), started);
            return;
        }
        FullHttpResponse response;
        boolean success = false;
        try {
            response = switch (operation) {
                case GET -> {
                    byte[] stored = server.store.get(key);
                    yield stored == null
                            ? HttpResponses.text(HttpResponseStatus.NOT_FOUND, "not found")
                            : HttpResponses.value(stored);
                }
                case PUT -> {
                    server.store.put(key, value);
                    yield HttpResponses.empty(HttpResponseStatus.CREATED);
                }
                case DELETE -> {
                    server.store.delete(key);
                    yield HttpResponses.empty(HttpResponseStatus.ACCEPTED);
                }
            };
            success = true;
        } catch (StoreException e) {
            server.storageErrors.warn("storage failure on " + operation + ": " + e.getMessage(), e);
            response = HttpResponses.text(e.noSpace() ? HttpResponseStatus.INSUFFICIENT_STORAGE
                    : HttpResponseStatus.INTERNAL_SERVER_ERROR, "storage failure: " + e.getMessage());
        } catch (RuntimeException e) {
            server.storageErrors.warn("unexpected failure on " + operation + ": " + e, e);
            response = HttpResponses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + e);
        }
        server.observer.storageCall(operation.name().toLowerCase(java.util.Locale.ROOT),
                System.nanoTime() - started, success);
        connection.respond(response, started);
    }

    @Override
    protected void rejected(RejectReason reason) {
        connection.respond(HttpResponses.unavailable(reason), 0);
    }
}
