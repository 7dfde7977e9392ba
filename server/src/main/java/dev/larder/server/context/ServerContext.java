package dev.larder.server.context;

import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.offload.Offload;
import dev.larder.server.offload.RateLimitedLog;
import dev.larder.storage.Store;
import org.slf4j.LoggerFactory;

/**
 * What every connection of one server shares: configuration, the store, the offload, the observer and the
 * shutdown flag. One instance per {@code LarderServer}; nothing here is static.
 */
public final class ServerContext {

    public final ServerOptions options;
    public final Store store;
    public final Offload offload;
    public final ServerObserver observer;
    public final LoopMissReads loopMissReads;
    private final RateLimitedLog storageErrors;
    private final long maxQueueDelayNanos;
    private volatile boolean shuttingDown;

    public ServerContext(ServerOptions options, Store store, Offload offload, ServerObserver observer) {
        this.options = options;
        this.store = store;
        this.offload = offload;
        this.observer = observer;
        this.loopMissReads = LoopMissReads.of(options, Runtime.getRuntime().availableProcessors());
        this.storageErrors = new RateLimitedLog(LoggerFactory.getLogger("dev.larder.storage-errors"), 1_000_000_000L);
        this.maxQueueDelayNanos = options.maxQueueDelay().toNanos();
    }

    /** Logs a storage failure, at most once a second: an overload that fails every request cannot flood the log. */
    public void storageError(String message, Throwable cause) {
        storageErrors.warn(message, cause);
    }

    public boolean shuttingDown() {
        return shuttingDown;
    }

    public void beginShutdown() {
        shuttingDown = true;
    }

    /** Whether a request that was queued at {@code queuedAt} and starts at {@code now} waited too long. */
    public boolean queueDelayExceeded(long queuedAt, long now) {
        return maxQueueDelayNanos > 0 && now - queuedAt > maxQueueDelayNanos;
    }
}
