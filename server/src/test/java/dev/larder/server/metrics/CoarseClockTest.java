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
    void resolutionMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new CoarseClock(Duration.ZERO));
    }
}
