package dev.larder.storage;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Cuts a long background loop into slices of at most {@code work}, with a sleep of {@code rest} after each, so a
 * background thread on the event loop's core gives the core back on its own every few tens of microseconds.
 *
 * <p>Why: the kernel (EEVDF, 250 Hz tick) lets a nice-19 thread that was picked run until the next tick, up to 4 ms,
 * while the event loop waits runnable: a loop that has used its slice is not eligible again until the background has
 * run. In a traced write phase the table warmer held the core that way 14 times in 13 s, 2.8-5.1 ms each, and every
 * such hold is a backlog that a core 92% busy drains in tens of ms (docs/performance.md, "Session 53"). A thread
 * that sleeps before the tick never holds it that long. A waking event loop preempts it at once in any case; this is
 * for a loop that is running, not one that is waking.
 */
final class SlicedWork {

    private final long workNanos;
    private final long restNanos;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;
    private long sliceStart;

    @FunctionalInterface
    interface Sleeper {
        void sleep(long nanos);
    }

    SlicedWork(Duration work, Duration rest) {
        this(work, rest, System::nanoTime, LockSupport::parkNanos);
    }

    SlicedWork(Duration work, Duration rest, LongSupplier nanoClock, Sleeper sleeper) {
        this.workNanos = work.toNanos();
        this.restNanos = rest.toNanos();
        this.nanoClock = nanoClock;
        this.sleeper = sleeper;
        this.sliceStart = nanoClock.getAsLong();
    }

    /** Call between small steps of the work (a few microseconds each): sleeps once the current slice is used up. */
    void checkpoint() {
        if (nanoClock.getAsLong() - sliceStart >= workNanos) {
            sleeper.sleep(restNanos);
            sliceStart = nanoClock.getAsLong();
        }
    }
}
