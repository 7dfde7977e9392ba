package dev.larder.server.http;

import java.util.function.BooleanSupplier;

/**
 * One event loop's view of whether the store's background (flushes, compactions, table reads) is at work, asked at
 * most once per {@link #PERIOD_NANOS}: the question is two engine property reads through JNI, and a loop that spins
 * through its coalescing windows decides several thousand times a second. A flush or compaction that starts meanwhile
 * waits at most that long for the core's spare time; the rescheduler polls at the same period while it is idle.
 *
 * <p>Not thread-safe: one per event loop, used on its thread. Times are {@link System#nanoTime()} values.
 */
final class BackgroundCheck {
    /** How long an answer is used. */
    static final long PERIOD_NANOS = 10_000_000L;

    private final BooleanSupplier busy;
    private long askAgainAt;
    private boolean lastAnswer;
    private boolean asked;

    BackgroundCheck(BooleanSupplier busy) {
        this.busy = busy;
    }

    /** Whether the background was at work when last asked, asking again once the last answer is a period old. */
    boolean busy(long now) {
        if (!asked || now - askAgainAt >= 0) {
            lastAnswer = ask();
            askAgainAt = now + PERIOD_NANOS;
            asked = true;
        }
        return lastAnswer;
    }

    private boolean ask() {
        try {
            return busy.getAsBoolean();
        } catch (RuntimeException e) {
            // Counted as at work: the loop then sleeps, which never takes the core from anyone.
            return true;
        }
    }
}
