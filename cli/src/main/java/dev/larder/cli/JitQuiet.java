package dev.larder.cli;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/** Waits for the JIT to go quiet: no compilation finished for a while, as the JVM's compilation time shows. */
final class JitQuiet {

    private static final long POLL_NANOS = 50_000_000;

    private JitQuiet() {
    }

    /**
     * Returns after at least {@code min}, once the JVM's total compilation time has not grown for {@code quiet}, or
     * after {@code max}; at once after {@code min} when the JVM does not measure compilation time.
     *
     * @return whether the JIT went quiet before {@code max}
     */
    static boolean await(Duration min, Duration quiet, Duration max) {
        return await(min, quiet, max, JitQuiet::pause);
    }

    /**
     * As {@link #await(Duration, Duration, Duration)}, running {@code meanwhile} between readings instead of sleeping:
     * the JIT is then quiet once what that step runs is compiled.
     */
    static boolean await(Duration min, Duration quiet, Duration max, Runnable meanwhile) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            long end = System.nanoTime() + min.toNanos();
            do {
                meanwhile.run();
            } while (System.nanoTime() < end);
            return true;
        }
        return await(jit::getTotalCompilationTime, System::nanoTime, min, quiet, max, meanwhile);
    }

    /** {@code compileMillis}: total compilation time so far; {@code nanoTime}: a monotonic clock. */
    static boolean await(LongSupplier compileMillis, LongSupplier nanoTime, Duration min, Duration quiet,
                         Duration max) {
        return await(compileMillis, nanoTime, min, quiet, max, JitQuiet::pause);
    }

    /** {@code meanwhile}: run between readings. */
    static boolean await(LongSupplier compileMillis, LongSupplier nanoTime, Duration min, Duration quiet,
                         Duration max, Runnable meanwhile) {
        long start = nanoTime.getAsLong();
        long last = compileMillis.getAsLong();
        long lastChange = start;
        while (true) {
            long now = nanoTime.getAsLong();
            long total = compileMillis.getAsLong();
            if (total != last) {
                last = total;
                lastChange = now;
            }
            if (now - start >= min.toNanos() && now - lastChange >= quiet.toNanos()) {
                return true;
            }
            if (now - start >= max.toNanos()) {
                return false;
            }
            meanwhile.run();
        }
    }

    private static void pause() {
        LockSupport.parkNanos(POLL_NANOS);
    }
}
