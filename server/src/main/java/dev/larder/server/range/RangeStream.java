package dev.larder.server.range;

import dev.larder.server.answer.HttpResponses;
import dev.larder.server.config.RejectReason;
import dev.larder.server.context.ServerContext;
import dev.larder.server.offload.Offload;
import dev.larder.server.offload.WorkerTask;
import dev.larder.storage.RangeCursor;
import dev.larder.storage.StoreException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * {@code GET /v0/entities}: walks a cursor in batches of about {@code --range-batch-bytes} and hands each batch to
 * the connection, which writes it and asks for the next only while the channel is writable. So at most one batch
 * per connection is in memory, however large the range.
 *
 * <p>Cursor calls happen on the connection's worker (or, when its queue is full, on the event loop); the lock makes
 * the two exclusive, since a RocksDB iterator must not be used by two threads at once.
 */
public final class RangeStream extends WorkerTask {

    private final RangeSink connection;
    private final ServerContext server;
    private final Offload.Lane lane;
    private final ByteBufAllocator alloc;
    private final byte[] start;
    private final byte[] end;
    private final long queuedAt;
    private final Object cursorLock = new Object();
    private RangeCursor cursor;
    private boolean cursorClosed;
    private volatile boolean cancelled;
    private boolean headerSent;
    private volatile long serviceStart;

    public RangeStream(RangeSink connection, ServerContext server, Offload.Lane lane, ByteBufAllocator alloc,
                       byte[] start, byte[] end) {
        this.connection = connection;
        this.server = server;
        this.lane = lane;
        this.alloc = alloc;
        this.start = start;
        this.end = end;
        this.queuedAt = System.nanoTime();
    }

    @Override
    protected void execute() {
        long started = System.nanoTime();
        serviceStart = started;
        server.observer.queueWait(started - queuedAt);
        if (server.queueDelayExceeded(queuedAt, started)) {
            server.observer.rejected(server.options.rejection(), RejectReason.QUEUE_DELAY);
            connection.respond(HttpResponses.unavailable(RejectReason.QUEUE_DELAY), started);
            return;
        }
        step();
    }

    @Override
    protected void rejected(RejectReason reason) {
        connection.respond(HttpResponses.unavailable(reason), 0);
    }

    /** Reads the next batch and hands it to the connection; runs on the lane. */
    void step() {
        ByteBuf batch = null;
        boolean done;
        long began = System.nanoTime();
        synchronized (cursorLock) {
            if (cancelled) {
                closeCursor();
                return;
            }
            try {
                if (cursor == null) {
                    cursor = server.store.range(start, end);
                }
                batch = alloc.buffer(Math.min(server.options.rangeBatchBytes(), 64 * 1024));
                done = fill(batch);
                if (done) {
                    closeCursor();
                }
            } catch (StoreException | IllegalStateException e) {
                if (batch != null) {
                    batch.release();
                }
                closeCursor();
                server.storageError("storage failure on range: " + e.getMessage(), e);
                server.observer.storageCall("range", System.nanoTime() - began, false);
                connection.streamFailed(this, e);
                return;
            }
        }
        server.observer.storageCall("range", System.nanoTime() - began, true);
        connection.streamBatch(this, batch, done);
    }

    private boolean fill(ByteBuf batch) {
        int limit = server.options.rangeBatchBytes();
        while (batch.readableBytes() < limit) {
            if (!cursor.next()) {
                return true;
            }
            batch.writeBytes(cursor.key()).writeByte('\n').writeBytes(cursor.value());
        }
        return false;
    }

    /** Schedules the next batch (the connection calls this once the previous batch was written). */
    public void requestNext() {
        lane.resume(this::step);
    }

    /** The client went away: release the cursor on the lane, never concurrently with a step. */
    public void cancel() {
        cancelled = true;
        lane.resume(this::step);
    }

    /** When a worker began the range, for its service time (0 before). */
    public long serviceStart() {
        return serviceStart;
    }

    /** Whether the 200 and its chunked header went out already; only the connection's event loop touches this. */
    public boolean headerSent() {
        return headerSent;
    }

    public void markHeaderSent() {
        headerSent = true;
    }

    private void closeCursor() {
        if (cursor != null && !cursorClosed) {
            cursorClosed = true;
            cursor.close();
        }
    }
}
