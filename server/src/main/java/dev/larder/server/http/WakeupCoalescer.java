package dev.larder.server.http;

/**
 * Decides how long an event loop that is about to block waits first ({@code --io-coalesce}), so that one wake-up
 * serves the requests of a whole window instead of one or two. A wake-up of an idle core, and each system call,
 * cost several microseconds on a virtual machine; at a fixed rate that is most of what a request costs over its
 * cost at saturation, where every wake-up is shared anyway (docs/performance.md, "Session 23").
 *
 * <p>It waits only while the load is moderate. An iteration that lasted the window or longer, because the loop
 * blocked that long with nothing to do (light load) or because it had that much to do (heavy load, where
 * batches are large already), turns waiting off for {@link #HOLD_WINDOWS} windows: a lone request on an idle server
 * is not delayed, and a saturated server does not sleep with requests ready.
 *
 * <p>Not thread-safe: one per event loop, used on its thread. Times are {@link System#nanoTime()} values.
 */
final class WakeupCoalescer {
    /** How many windows a long iteration keeps waiting off. */
    static final int HOLD_WINDOWS = 4;

    private final long windowNanos;
    private final long holdNanos;
    private long quietUntil;

    WakeupCoalescer(long windowNanos, long now) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("window must be positive: " + windowNanos);
        }
        this.windowNanos = windowNanos;
        this.holdNanos = HOLD_WINDOWS * windowNanos;
        this.quietUntil = now + holdNanos;
    }

    /**
     * Nanoseconds to wait before blocking: the window, cut short by the next scheduled task; 0 while a recent long
     * iteration holds waiting off.
     */
    long waitBeforeBlocking(long now, long nextTaskDelayNanos) {
        if (now - quietUntil < 0) {
            return 0;
        }
        return Math.max(0, Math.min(windowNanos, nextTaskDelayNanos));
    }

    /** Records one iteration of the loop's I/O handling, from {@code start} to {@code end}. */
    void ran(long start, long end) {
        if (end - start >= windowNanos) {
            quietUntil = end + holdNanos;
        }
    }
}
