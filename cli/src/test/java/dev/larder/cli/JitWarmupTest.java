package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.ServerOptions;
import dev.larder.storage.StoreOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which request paths the warm-up compiles: with the loop running quick calls, the worker's path as well. */
class JitWarmupTest {

    @Test
    void withInlineCallsTheWarmupAlsoHandsEveryRequestOverFirst() {
        ServerOptions options = ServerOptions.builder(2).build();
        assertEquals(64, options.inlineBatch(), "the default runs quick calls on the loop");
        List<ServerOptions> paths = JitWarmup.requestPaths(options);
        assertEquals(2, paths.size());
        assertEquals(options, paths.get(0), "first the server as configured");
        assertEquals(ServerOptions.builder(2).inlineBatch(0).build(), paths.get(1),
                "then the worker's path: every request handed over, nothing else changed");
    }

    @Test
    void theWorkersPathIsWarmedUntilC2HasCompiledItAndHasNothingLeftToDo(@TempDir Path dir) {
        AtomicInteger asked = new AtomicInteger();
        // C2 "compiles" the path at the third look and is idle from then on.
        CompiledCode code = CompiledCode.of(
                () -> asked.incrementAndGet() >= 3 ? topTier(JitWarmup.WORKER_PATH) : topTier(List.of()),
                () -> C2_IDLE);
        JitWarmup.Report report = warm(ServerOptions.builder(2).build(), dir, code, Duration.ofMinutes(1));
        assertEquals(Set.of(), report.notCompiled());
        // Passes 1 and 2 found it missing, 3 to 5 compiled and idle: five passes of 50 rounds and a DELETE round.
        assertEquals(5L * 32 * 51, report.inStepRequests());
    }

    @Test
    void aPathC2NeverCompilesEndsTheRoundsAtTheirLimitAndIsReported(@TempDir Path dir) {
        JitWarmup.Report report = warm(ServerOptions.builder(2).build(), dir, NEVER_COMPILED, Duration.ofSeconds(1));
        assertEquals(Set.copyOf(JitWarmup.WORKER_PATH), report.notCompiled());
        assertTrue(report.inStepRequests() >= 32 * 51, "at least one pass: " + report.inStepRequests());
    }

    @Test
    void theSynchronousModeHasNoWorkersPathToWaitFor(@TempDir Path dir) {
        JitWarmup.Report report = warm(ServerOptions.builder(2).workers(0).build(), dir, NEVER_COMPILED,
                Duration.ofSeconds(1));
        assertEquals(0, report.inStepRequests());
        assertEquals(Set.of(), report.notCompiled());
    }

    @Test
    void withMetricsTheTimerSoakScrapesThemAndWithoutItCannot(@TempDir Path dir) {
        JitWarmup.Report withMetrics = JitWarmup.run(ServerOptions.builder(2).build(),
                StoreOptions.defaults(dir.resolve("a")), true, 2_000, Duration.ofMillis(100), NEVER_COMPILED,
                Duration.ofSeconds(1));
        // Back to back for at least the soak's minimum second: a scrape of the warm-up's registry takes milliseconds.
        assertTrue(withMetrics.soakScrapes() >= 10, "scrapes: " + withMetrics.soakScrapes());
        assertEquals(0, warm(ServerOptions.builder(2).build(), dir, NEVER_COMPILED, Duration.ofSeconds(1))
                .soakScrapes());
    }

    @Test
    void aShortWarmUpsTimerSoakWaitsItsShareOfTheLimitAndNeverLessThanTheMinimum() {
        assertEquals(JitWarmup.TIMER_SOAK_MAX, JitWarmup.soakMax(JitWarmup.FULL_REQUESTS));
        assertEquals(JitWarmup.TIMER_SOAK_MAX, JitWarmup.soakMax(10 * JitWarmup.FULL_REQUESTS));
        assertEquals(JitWarmup.TIMER_SOAK_MAX.dividedBy(2), JitWarmup.soakMax(JitWarmup.FULL_REQUESTS / 2));
        // The tests' 2,000 requests: a thirtieth of the limit is below the minimum, which holds.
        assertEquals(JitWarmup.TIMER_SOAK_MIN, JitWarmup.soakMax(LarderProcess.SHORT_WARMUP_REQUESTS));
    }

    @Test
    void everyMethodOfTheWorkersPathExists() throws Exception {
        // A renamed method would never be listed as compiled, and every start would wait the whole limit for it.
        for (String method : JitWarmup.WORKER_PATH) {
            int dot = method.lastIndexOf('.');
            Class<?> owner = Class.forName(method.substring(0, dot));
            String name = method.substring(dot + 1);
            assertTrue(Arrays.stream(owner.getDeclaredMethods()).anyMatch(m -> m.getName().equals(name)), method);
        }
    }

    private static final String C2_IDLE = "C2 compile queue:\nEmpty\n";
    private static final CompiledCode NEVER_COMPILED = CompiledCode.of(() -> topTier(List.of()), () -> C2_IDLE);

    /** A warm-up of 2,000 requests that asks {@code code} what C2 has compiled, with rounds for at most {@code max}. */
    private static JitWarmup.Report warm(ServerOptions options, Path dir, CompiledCode code, Duration max) {
        return JitWarmup.run(options, StoreOptions.defaults(dir.resolve("data")), false, 2_000, Duration.ofMillis(100),
                code, max);
    }

    /** A code list in {@code Compiler.codelist}'s format with each of {@code methods} at C2. */
    private static String topTier(List<String> methods) {
        StringBuilder list = new StringBuilder("1 3 0 java.lang.Object.<init>()V [0x0, 0x0 - 0x0]\n");
        int id = 2;
        for (String method : methods) {
            list.append(id++).append(" 4 0 ").append(method).append("()V [0x0, 0x0 - 0x0]\n");
        }
        return list.toString();
    }

    @Test
    void withoutInlineCallsOrWithoutWorkersOneServerCoversEveryPath() {
        ServerOptions handOver = ServerOptions.builder(2).inlineBatch(0).build();
        assertEquals(List.of(handOver), JitWarmup.requestPaths(handOver));
        ServerOptions sync = ServerOptions.builder(2).workers(0).build();
        assertEquals(List.of(sync), JitWarmup.requestPaths(sync));
    }

    @Test
    void aLowConnectionLimitDoesNotStopTheWarmup(@TempDir Path dir) {
        // The soak and the load hold 64 connections each; the limit is the server's, not the warm-up's.
        ServerOptions options = ServerOptions.builder(2).maxConnections(4).build();
        assertDoesNotThrow(() -> JitWarmup.run(options, StoreOptions.defaults(dir.resolve("data")), false, 2_000,
                Duration.ofMillis(100)));
    }
}
