package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default warm-up as the jar runs it: done before the listener opens, invisible in the data and metrics, and
 * with the timer tasks compiled by then.
 *
 * <p>The first three tests read one server, started with {@code -XX:+PrintCompilation} (a line when a method's
 * compilation starts, with its tier, 4 = C2): each default warm-up takes 20-30 s on the test machines, and those
 * tests ask different questions of the same start. The scrape's test needs the README's JIT flags, so its own.
 */
class JitWarmupIT {

    @TempDir
    static Path sharedDir;

    private static LarderProcess shared;

    @BeforeAll
    static void startTheDefaultServerPrintingItsCompilations() throws Exception {
        List<String> command = List.of("java", "-Xmx256m", "-XX:+PrintCompilation", "-jar",
                LarderProcess.jar().toString(), "serve", "--port", "0", "--data-dir",
                sharedDir.resolve("data").toString(), "--admin-port", Integer.toString(DashboardQueriesIT.freePort()),
                "--warmup-requests", "60000");
        shared = LarderProcess.exec(command, Map.of());
    }

    @AfterAll
    static void stopTheDefaultServer() throws Exception {
        if (shared != null) {
            shared.close();
        }
    }

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theDefaultWarmupRunsBeforeListeningAndLeavesNoTrace() throws Exception {
        String out = shared.output();
        int warmedAt = out.indexOf("warm-up: 60000 requests through a throwaway server");
        assertTrue(warmedAt >= 0, out);
        assertTrue(warmedAt < out.indexOf("larder started: "), "the warm-up ends before the listener opens");
        assertFalse(out.contains("warm-up failed"), out);

        assertEquals("", get(shared.baseUrl() + "/v0/entities?start=%00").body(), "no warm-up key in the data");
        String metrics = get(shared.adminUrl() + "/metrics").body();
        assertFalse(metrics.contains("uri=\"/v0/entity\""), "warm-up requests counted in the metrics");
        assertEquals(200, get(shared.adminUrl() + "/health/ready").statusCode());
    }

    /**
     * Netty's scheduled-task path and the connection's timeout check, which run a few times a second per connection,
     * reached C2 minutes into a load at the real periods; the warm-up runs them every millisecond so that C2 has them
     * before the listener opens. {@code -XX:+PrintCompilation} prints a line when a method's compilation starts, with
     * its tier (4 = C2).
     */
    @Test
    void theTimerTasksAreCompiledByC2BeforeTheListenerOpens() throws Exception {
        String beforeListening = compilationsBeforeListening();
        // The root of every timer task's run; the check itself may be compiled only inlined into it (CI saw that
        // once), so it is not asserted on its own.
        assertCompiledByC2("io.netty.util.concurrent.ScheduledFutureTask::run", beforeListening);
    }

    /**
     * The worker's path: its request rounds alone left {@code Worker.runOnce} C1 code, and C2 compiled it at the first
     * burst of cold reads of a load. The rounds of like calls at the end of the warm-up go on until it is C2's. Only
     * the two roots are asserted: {@code readAll} and {@code CompletionBatch.flush} were not always compiled when the
     * 10 s ran out (docs/performance.md, "Session 42"; in CI once {@code readAll}).
     */
    @Test
    void theWorkersPathIsCompiledByC2BeforeTheListenerOpens() throws Exception {
        String beforeListening = compilationsBeforeListening();
        assertCompiledByC2("dev.larder.server.offload.Worker::runOnce", beforeListening);
        assertCompiledByC2("dev.larder.server.offload.Worker::flush", beforeListening);
    }

    /**
     * The scrape: the warm-up scrapes its own registry until the JIT is quiet, and nothing after it may throw the
     * compiled scrape away. Its cleanup did (the JVM's first sorted stream, loaded as it deleted its stores), and C2
     * then compiled the scrape's largest method again, 20-55 ms of the core at each of the real server's first
     * scrapes (docs/performance.md, "Sessions 74-75").
     */
    @Test
    void theScrapeIsCompiledByC2BeforeTheListenerOpensAndNotAgainAtTheFirstScrapes() throws Exception {
        // With the JIT flags the README's command runs the server with (ServerJvm.JIT_FLAGS): without them C2's code
        // has uncommon traps, and a branch the warm-up's registry never took recompiles it on purpose.
        List<String> command = new ArrayList<>(List.of("java", "-Xmx256m", "-XX:+PrintCompilation"));
        command.addAll(ServerJvm.JIT_FLAGS);
        command.addAll(List.of("-jar", LarderProcess.jar().toString(), "serve", "--port", "0", "--data-dir",
                dir.resolve("data").toString(), "--admin-port", Integer.toString(DashboardQueriesIT.freePort()),
                "--warmup-requests", "60000"));
        try (LarderProcess larder = LarderProcess.exec(command, Map.of())) {
            for (int i = 0; i < 5; i++) {
                assertEquals(200, get(larder.adminUrl() + "/metrics").statusCode());
            }
            // The last scrape's compilations are printed by the compiler threads, maybe a little after it answered.
            Thread.sleep(500);
            String out = larder.output();
            int listening = out.indexOf("larder started: ");
            assertTrue(listening >= 0, out);
            assertCompiledByC2(SCRAPE_SAMPLES, out.substring(0, listening));
            assertFalse(compiledByC2(SCRAPE_SAMPLES, out.substring(listening)),
                    SCRAPE_SAMPLES + " compiled by C2 again after the listener opened");
        }
    }

    /**
     * The scrape's largest method (a histogram's samples, 613 bytes of bytecode in Micrometer 1.17), the one C2
     * compiled again at the first scrapes; its name ends in a lambda's number.
     */
    private static final String SCRAPE_SAMPLES =
            "io.micrometer.prometheusmetrics.PrometheusMeterRegistry::lambda$addDistributionStatisticSamples$0";

    private static boolean compiledByC2(String method, String compilations) {
        return Pattern.compile("(?m)^\\s*\\d+\\s+\\d+\\s+[%sbn! ]*4\\s+" + Pattern.quote(method) + " ")
                .matcher(compilations).find();
    }

    private static void assertCompiledByC2(String method, String compilations) {
        assertTrue(compiledByC2(method, compilations), method + " not compiled by C2 before listening");
    }

    /** What the shared default server printed before it listened. */
    private static String compilationsBeforeListening() {
        String out = shared.output();
        int listening = out.indexOf("larder started: ");
        assertTrue(listening >= 0, out);
        return out.substring(0, listening);
    }
}
