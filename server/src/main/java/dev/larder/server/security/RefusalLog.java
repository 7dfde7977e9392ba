package dev.larder.server.security;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * At most one line per interval about refused requests, with how many were not logged: someone guessing tokens
 * must not be able to fill the disk or slow the server with log lines.
 */
final class RefusalLog {

    private final Logger logger;
    private final long intervalNanos;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    RefusalLog(Logger logger, long intervalNanos) {
        this.logger = logger;
        this.intervalNanos = intervalNanos;
    }

    void refused(String line) {
        long now = System.nanoTime();
        long next = nextAllowed.get();
        if ((next != Long.MIN_VALUE && now - next < 0) || !nextAllowed.compareAndSet(next, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return;
        }
        long dropped = suppressed.getAndSet(0);
        logger.warn(dropped > 0 ? line + " (" + dropped + " more refused since the last line)" : line);
    }
}
