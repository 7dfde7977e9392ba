package dev.larder.server.context;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs at most one line per interval and counts what it dropped, so an overload that fails every request cannot
 * flood the log (and slow the server further by doing so).
 */
final class RateLimitedLog {

    private final Logger logger;
    private final long intervalNanos;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    RateLimitedLog(Logger logger, long intervalNanos) {
        this.logger = logger;
        this.intervalNanos = intervalNanos;
    }

    void warn(String message, Throwable cause) {
        long now = System.nanoTime();
        long next = nextAllowed.get();
        if ((next != Long.MIN_VALUE && now - next < 0) || !nextAllowed.compareAndSet(next, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return;
        }
        long dropped = suppressed.getAndSet(0);
        String suffix = dropped > 0 ? " (" + dropped + " similar messages suppressed)" : "";
        if (cause != null && logger.isDebugEnabled()) {
            logger.warn(message + suffix, cause);
        } else {
            logger.warn(message + suffix);
        }
    }
}
