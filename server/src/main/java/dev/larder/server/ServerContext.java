package dev.larder.server;

import dev.larder.storage.Store;
import org.slf4j.LoggerFactory;

/**
 * What every connection of one server shares: configuration, the store, the offload, the observer and the
 * shutdown flag. One instance per {@link LarderServer}; nothing here is static.
 */
final class ServerContext {

    final ServerOptions options;
    final Store store;
    final Offload offload;
    final ServerObserver observer;
    final RateLimitedLog storageErrors;
    final long maxQueueDelayNanos;
    private volatile boolean shuttingDown;

    ServerContext(ServerOptions options, Store store, Offload offload, ServerObserver observer) {
        this.options = options;
        this.store = store;
        this.offload = offload;
        this.observer = observer;
        this.storageErrors = new RateLimitedLog(LoggerFactory.getLogger("dev.larder.storage-errors"), 1_000_000_000L);
        this.maxQueueDelayNanos = options.maxQueueDelay().toNanos();
    }

    boolean shuttingDown() {
        return shuttingDown;
    }

    void beginShutdown() {
        shuttingDown = true;
    }

    /** Whether a request that was queued at {@code queuedAt} and starts at {@code now} waited too long. */
    boolean queueDelayExceeded(long queuedAt, long now) {
        return maxQueueDelayNanos > 0 && now - queuedAt > maxQueueDelayNanos;
    }
}
