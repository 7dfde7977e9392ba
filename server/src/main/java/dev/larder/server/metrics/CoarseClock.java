package dev.larder.server.metrics;

import io.micrometer.core.instrument.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A Micrometer {@link Clock} whose wall time is a field refreshed by one daemon thread every {@code resolution}.
 *
 * <p>Every timer {@code record()} reads the wall clock twice (to rotate its max and its histogram windows, whose
 * periods are tens of seconds), and on virtual machines {@code currentTimeMillis()} costs tens of nanoseconds: with
 * four timers per request that was about 40% of what recording costs. A value stale by the resolution (100 ms in
 * {@code serve}) changes nothing for windows that long. Monotonic time (used to time samples) stays exact.
 *
 * <p>{@link #fastForward} makes a clock whose wall time runs faster, for the JIT warm-up's throwaway registry: its
 * windows then rotate during the warm-up, so C2 compiles the rotation as a branch that is taken. With a real clock
 * the first rotation came 20 s into the first load of each timer, hit an untaken branch compiled as a trap, and
 * threw away the recording code inlined into the workers' and the event loop's hottest methods
 * (docs/performance.md, session 16).
 */
public final class CoarseClock implements Clock, AutoCloseable {

    private final ScheduledExecutorService ticker;
    private final long origin = System.currentTimeMillis();
    private final long speed;
    private volatile long wallTime = origin;

    public CoarseClock(Duration resolution) {
        this(resolution, 1);
    }

    private CoarseClock(Duration resolution, long speed) {
        if (resolution.isNegative() || resolution.isZero()) {
            throw new IllegalArgumentException("resolution: " + resolution + " (expected: > 0)");
        }
        if (speed < 1) {
            throw new IllegalArgumentException("speed: " + speed + " (expected: >= 1)");
        }
        this.speed = speed;
        ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "larder-metrics-clock");
            thread.setDaemon(true);
            return thread;
        });
        long nanos = resolution.toNanos();
        ticker.scheduleAtFixedRate(() -> wallTime = origin + (System.currentTimeMillis() - origin) * this.speed,
                nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /** A clock whose wall time advances {@code speed} times faster than real time; monotonic time stays real. */
    public static CoarseClock fastForward(Duration resolution, long speed) {
        return new CoarseClock(resolution, speed);
    }

    @Override
    public long wallTime() {
        return wallTime;
    }

    @Override
    public long monotonicTime() {
        return System.nanoTime();
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}
