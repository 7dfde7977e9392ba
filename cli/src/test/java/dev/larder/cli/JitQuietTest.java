package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** When the warm-up's timer soak stops: a clock that advances 100 ms per reading, compilation time as scripted. */
class JitQuietTest {

    private static final Duration MIN = Duration.ofMillis(1000);
    private static final Duration QUIET = Duration.ofMillis(500);
    private static final Duration MAX = Duration.ofMillis(6000);

    /** A clock reading 0, 100, 200, ... ms, and the compilation time the script gives at each clock reading. */
    private static final class Script {
        final AtomicLong readings = new AtomicLong();
        final LongSupplier nanoTime = () -> Duration.ofMillis(100 * readings.getAndIncrement()).toNanos();
        final long busyUntilMillis;

        Script(long busyUntilMillis) {
            this.busyUntilMillis = busyUntilMillis;
        }

        /** Grows by one every reading until {@code busyUntilMillis}, then stays. */
        long compileMillis() {
            long now = 100 * Math.max(0, readings.get() - 1);
            return Math.min(now, busyUntilMillis);
        }

        long stoppedAtMillis() {
            return 100 * (readings.get() - 1);
        }
    }

    @Test
    void aQuietJitStillWaitsTheMinimum() {
        Script script = new Script(0);
        assertTrue(JitQuiet.await(script::compileMillis, script.nanoTime, MIN, QUIET, MAX));
        assertEquals(1000, script.stoppedAtMillis());
    }

    @Test
    void aBusyJitIsWaitedForUntilItHasBeenQuietThatLong() {
        Script script = new Script(2000);
        assertTrue(JitQuiet.await(script::compileMillis, script.nanoTime, MIN, QUIET, MAX));
        assertEquals(2500, script.stoppedAtMillis(), "last change at 2000 ms, then 500 ms quiet");
    }

    @Test
    void aJitThatNeverGoesQuietIsWaitedForAtMostTheMaximum() {
        Script script = new Script(Long.MAX_VALUE);
        assertFalse(JitQuiet.await(script::compileMillis, script.nanoTime, MIN, QUIET, MAX));
        assertEquals(6000, script.stoppedAtMillis());
    }

    @Test
    void theStepGivenRunsBetweenReadingsInsteadOfASleep() {
        Script script = new Script(2000);
        AtomicLong steps = new AtomicLong();
        assertTrue(JitQuiet.await(script::compileMillis, script.nanoTime, MIN, QUIET, MAX, steps::incrementAndGet));
        assertEquals(2500, script.stoppedAtMillis());
        // The clock is read at 0 ms to start, then once a pass at 100, ..., 2500 ms: a step after each pass but the
        // last.
        assertEquals(24, steps.get());
    }
}
