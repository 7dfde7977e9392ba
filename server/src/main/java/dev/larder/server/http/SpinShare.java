package dev.larder.server.http;

/**
 * Decides, window by window, whether a loop that spins through its coalescing windows ({@code --io-coalesce-wait
 * spin}) spins or sleeps: it spins while the store's flushes, compactions and table reads are idle; while they work,
 * it sleeps through windows enough that they get {@link #BACKGROUND_SHARE} of the loop's waiting time, and spins
 * through the rest.
 *
 * <p>Why a share and not all or nothing: a loop at nice 0 that spins through every window is always runnable, and
 * leaves RocksDB's nice-19 threads their weight's share of the core, about 1.5%; in the phase run the writes' flushes
 * and compactions then fell behind and the last read phase missed (433 and 659 ms). A loop that sleeps through every
 * window while they work gives them all its waiting time, but in the phases they work most of the time, so it slept
 * most of the time and its requests cost what they cost without the spin (docs/performance.md, "Session 90").
 * Sleeping through half of the windows while they work leaves them the core's spare time in whole windows, and
 * keeps the other half of the loop's windows awake: in the phases the write phases' compactions were done early in
 * the mix instead of running into the last read phase, and a request cost 0.98-1.25x its saturated cost against the
 * sleeping loop's 1.19-1.38x; the phases held were no more (19 of 35 against 18 of 35), and a quarter was worse than
 * both (1 of 10; docs/performance.md, "Session 91").
 *
 * <p>Not thread-safe: one per event loop, used on its thread. Times are {@link System#nanoTime()} values.
 */
final class SpinShare {
    /** The part of the loop's waiting time the background gets while it works. */
    static final double BACKGROUND_SHARE = 0.5;
    /** How much waiting the account remembers: older waits count for less, so it follows the background's work. */
    static final long MEMORY_NANOS = 100_000_000L;

    private final BackgroundCheck background;
    /** While the background works: the waiting time in all, and the part of it slept. */
    private long waited;
    private long slept;

    SpinShare(BackgroundCheck background) {
        this.background = background;
    }

    /** Whether the loop spins through a window of {@code waitNanos} starting {@code now}, else it sleeps. */
    boolean spin(long now, long waitNanos) {
        if (!background.busy(now)) {
            waited = 0;
            slept = 0;
            return true;
        }
        // Sleep unless the background has had its share of the waiting time even after this window.
        boolean spin = slept >= BACKGROUND_SHARE * (waited + waitNanos);
        waited += waitNanos;
        if (!spin) {
            slept += waitNanos;
        }
        if (waited > MEMORY_NANOS) {
            waited >>= 1;
            slept >>= 1;
        }
        return spin;
    }
}
