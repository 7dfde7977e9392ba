package dev.larder.server.threads;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thread that wakes every {@code interval} while the store's background threads are at work, so the scheduler
 * decides again who runs on the core between the kernel's ticks ({@code --reschedule-interval}).
 *
 * <p>Why: on a core the event loop shares with RocksDB's flushes and compactions (at nice 19), EEVDF hands the core
 * to a background thread once the loop has run its share, and nothing takes it back before the next tick: 4 ms on a
 * 250 Hz kernel, while requests wait for a loop that is runnable (docs/performance.md, "Session 53": 592 such waits in
 * 13 s of a write phase, p99 4 ms). A nice-19 thread's share is used up within tens of microseconds, so at any
 * decision point after that the loop wins. A wake-up of this thread is such a point: it preempts the background
 * thread (it asks for the shortest slice the kernel gives, so EEVDF's short-slice preemption lets it in even inside
 * the running thread's protected slice), does nothing, and sleeps; the scheduler then picks the loop. The kernel can
 * do this itself with its {@code HRTICK} feature, which is off by default and not a setting a server may change.
 *
 * <p>It only helps where the loops and the background share a core (a server pinned to one), and it costs the core a
 * wake-up per interval, so it sleeps while the background is idle and checks that every {@link #IDLE_CHECK}. A server
 * runs it at nice 19 ({@code --reschedule-nice}): the shortest slice still gives it an earlier deadline than the
 * nice-19 background threads, but no longer than a busy event loop, which at nice 0 it preempted thousands of times a
 * second at saturation for nothing (docs/performance.md, "Session 56").
 */
public final class Rescheduler implements AutoCloseable {

    /** How often an idle background is checked for work: a flush or compaction starts at most this late. */
    static final Duration IDLE_CHECK = Duration.ofMillis(10);
    private static final Logger log = LoggerFactory.getLogger(Rescheduler.class);
    private static final String THREAD_NAME = "larder-rescheduler";

    private final long intervalNanos;
    private final int wakeupsPerCheck;
    private final BooleanSupplier backgroundBusy;
    private final ThreadSlice slice;
    private final Thread thread;
    private final AtomicLong wakeups = new AtomicLong();
    private volatile boolean closed;
    private boolean failureLogged;

    private Rescheduler(Duration interval, BooleanSupplier backgroundBusy, ThreadSlice slice) {
        this.intervalNanos = interval.toNanos();
        this.wakeupsPerCheck = (int) Math.max(1, IDLE_CHECK.toNanos() / intervalNanos);
        this.backgroundBusy = backgroundBusy;
        this.slice = slice;
        this.thread = new Thread(this::run, THREAD_NAME);
        this.thread.setDaemon(true);
    }

    /**
     * Starts waking every {@code interval} while {@code backgroundBusy} says so; {@code slice} is the EEVDF slice the
     * thread asks for (the shortest, {@code 100us}, lets it preempt a thread inside its protected slice).
     */
    public static Rescheduler start(Duration interval, BooleanSupplier backgroundBusy, ThreadSlice slice) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("interval: " + interval + " (expected: > 0)");
        }
        Rescheduler rescheduler = new Rescheduler(interval, backgroundBusy, slice);
        rescheduler.thread.start();
        return rescheduler;
    }

    private void run() {
        slice.applyToCurrentThread();
        while (!closed) {
            if (!backgroundBusy()) {
                LockSupport.parkNanos(IDLE_CHECK.toNanos());
                continue;
            }
            for (int i = 0; i < wakeupsPerCheck && !closed; i++) {
                LockSupport.parkNanos(intervalNanos);
                wakeups.incrementAndGet();
            }
        }
    }

    /**
     * The store's answer; a check that throws counts as idle, so one failing check neither ends the thread (the
     * server would lose the mechanism for the rest of its life) nor makes it wake for nothing.
     */
    private boolean backgroundBusy() {
        try {
            return backgroundBusy.getAsBoolean();
        } catch (RuntimeException e) {
            if (!failureLogged) {
                failureLogged = true;
                log.warn("background check failed, counted as idle (logged once): {}", e.toString());
            }
            return false;
        }
    }

    /** Wake-ups at the interval so far (not the idle checks): what it has cost the core. */
    public long wakeups() {
        return wakeups.get();
    }

    /** Stops the thread and waits for it (at most a second). */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
