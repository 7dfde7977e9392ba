package dev.larder.server.offload;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs at most one line per interval and counts what it dropped, so an overload that fails every request cannot
 * flood the log (and slow the server further by doing so).
 */
public final class RateLimitedLog {

    private final Logger logger;
    private final long intervalNanos;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger logger, long intervalNanos) {
        this.logger = logger;
        this.intervalNanos = intervalNanos;
    }

    /** Logs {@code message} at INFO, unless a line was logged less than an interval ago. */
    public void info(String message) {
        String suffix = admit();
        if (suffix != null) {
            logger.info(message + suffix);
        }
    }

    public void warn(String message, Throwable cause) {
        String suffix = admit();
        if (suffix == null) {
            return;
        }
        if (cause != null && logger.isDebugEnabled()) {
            logger.warn(message + suffix, cause);
        } else {
            logger.warn(message + suffix);
        }
    }

    /** The suffix counting what was dropped since the last line, or {@code null} when this one is dropped too. */
    private String admit() {
        long now = System.nanoTime();
        long next = nextAllowed.get();
        if ((next != Long.MIN_VALUE && now - next < 0) || !nextAllowed.compareAndSet(next, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return null;
        }
        long dropped = suppressed.getAndSet(0);
        return dropped > 0 ? " (" + dropped + " similar messages suppressed)" : "";
    }
}
