package dev.larder.server.metrics;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CoarseClockTest {

    @Test
    void wallTimeFollowsTheSystemClockWithinItsResolution() throws InterruptedException {
        try (CoarseClock clock = new CoarseClock(Duration.ofMillis(5))) {
            long first = clock.wallTime();
            assertTrue(Math.abs(first - System.currentTimeMillis()) < 1_000);
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (clock.wallTime() < first + 50 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(clock.wallTime() >= first + 50, "wall time advances");
            long nanos = clock.monotonicTime();
            assertTrue(clock.monotonicTime() >= nanos);
        }
    }

    @Test
    void aFastForwardedClocksWallTimeRunsThatManyTimesFasterAndItsMonotonicTimeDoesNot() throws InterruptedException {
        try (CoarseClock clock = CoarseClock.fastForward(Duration.ofMillis(5), 64)) {
            Thread.sleep(20);
            long wall0 = clock.wallTime();
            long mono0 = clock.monotonicTime();
            long real0 = System.currentTimeMillis();
            Thread.sleep(1_000);
            long wall = clock.wallTime() - wall0;
            long mono = clock.monotonicTime() - mono0;
            long real = System.currentTimeMillis() - real0;
            // Each wall-time reading may be one resolution (5 ms of real time) stale, more when its thread waits for
            // a busy core: 100 ms of slack each way, still 60 s from what a clock at x1 would read.
            assertTrue(wall >= 64 * (real - 100) && wall <= 64 * (real + 100),
                    "wall " + wall + " ms in " + real + " ms");
            assertTrue(Math.abs(mono / 1_000_000 - real) < 100, "monotonic " + mono / 1_000_000 + " ms in " + real);
        }
    }

    @Test
    void resolutionAndSpeedMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new CoarseClock(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> CoarseClock.fastForward(Duration.ofMillis(5), 0));
    }
}
