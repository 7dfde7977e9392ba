package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sweep, comparison, report, JSON, .hgrm and profiles, end to end against stubs. */
class BenchFlowTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream text = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);

    private String output() {
        return text.toString(StandardCharsets.UTF_8);
    }

    private static BenchOptions.Builder quick() {
        return BenchOptions.builder().connections(16).threads(1).warmup(Duration.ofMillis(300))
                .duration(Duration.ofSeconds(1)).timeout(Duration.ofSeconds(5))
                .workload(Workload.of(Operation.GET, 100, KeyDistribution.UNIFORM, false, ValueSize.fixed(8)));
    }

    @Test
    void sweepFindsTheBreakdownAndWritesReportJsonHgrmAndProfiles() throws IOException {
        // Serial stub: 1 ms per request, so 1000 req/s at most. The SLO's latency bound is loose on purpose (the
        // test machine is shared): rates above the capacity miss it by the achieved rate, which noise cannot fix.
        try (StubServer stub = StubServer.serial(1000)) {
            Path report = dir.resolve("report");
            BenchOptions options = quick()
                    .target(Target.external("stub", stub.url()).withAdminUrl(stub.url()))
                    .reportDir(report).json(dir.resolve("out.json")).hgrm(dir.resolve("lat.hgrm"))
                    .profileEvents(List.of("cpu")).prefill(true)
                    .warmup(Duration.ofSeconds(1)).duration(Duration.ofSeconds(2))
                    .commandLine("larder bench sweep --from 100 --to 2500 --step 600").build();
            SweepOptions sweep = new SweepOptions(100, 2500, 600, 1, Slo.parse("p99=1s"), false, Duration.ZERO,
                    Duration.ofSeconds(1));
            BenchResult result = Bench.run(options, sweep, out, out);

            TargetResult t = result.targets().get(0);
            SweepOutcome o = t.sweep();
            assertNotNull(o.breakdown(), output());
            assertTrue(o.breakdown() >= 100 && o.breakdown() < 1300, o.verdict() + "\n" + output());
            assertFalse(o.reachedTop(), output());
            assertTrue(output().contains("Breakdown point: "), output());
            assertTrue(t.prefill().startsWith("PUT k1..k100: 100 answers"), t.prefill());
            assertTrue(t.settings().contains("metrics (" + stub.url() + "): larder_workers 4"), t.settings().toString());
            assertTrue(t.settings().contains("metrics (" + stub.url() + "): larder_build_info{version=\"test\"} 1"),
                    t.settings().toString());
            assertFalse(t.settings().toString().contains("requests_total"), t.settings().toString());

            String html = Files.readString(report.resolve("index.html"));
            assertTrue(html.contains("<svg"), "charts");
            assertTrue(html.contains("stub breakdown " + Units.rate(o.breakdown())), "breakdown marker");
            assertTrue(html.contains("href=\"profiles/stub-100-cpu.html\""), "profile link");
            assertTrue(html.contains("larder bench sweep --from 100 --to 2500 --step 600"), "command");
            assertFalse(html.contains("<script"), "no scripts");
            assertFalse(html.matches("(?s).*(src|href)=\"https?://.*"), "nothing fetched from the network");
            assertTrue(Files.readString(report.resolve("profiles/stub-100-cpu.html")).contains("flame graph"));
            assertTrue(Files.readString(report.resolve("charts/latency-vs-rate.svg")).startsWith("<svg"));
            assertTrue(Files.exists(report.resolve("charts/percentiles-stub.svg")));
            assertTrue(stub.profiles() >= 2, "a profile per rate");
            assertTrue(Files.readString(report.resolve("hgrm/stub-100.hgrm")).contains("Value"));
            assertTrue(Files.exists(report.resolve("hgrm/stub-100-uncorrected.hgrm")));
            assertTrue(Files.exists(dir.resolve("lat-stub-100.hgrm")));

            String json = Files.readString(dir.resolve("out.json"));
            assertTrue(json.contains("\"breakdown_rate\": " + Units.rate(o.breakdown())), json);
            assertTrue(json.contains("\"slo_held\": true"), json);
            assertTrue(json.contains("\"slo_held\": false"), json);
            assertTrue(json.contains("\"p99\": "), json);
        }
    }

    @Test
    void compareTwoServersInOneReport() throws IOException {
        try (StubServer fast = StubServer.fixed(200); StubServer slow = StubServer.fixed(3000)) {
            Path report = dir.resolve("cmp");
            BenchOptions options = quick().rate(200)
                    .target(Target.parse("fast=" + fast.url(), 1)).target(Target.parse("slow=" + slow.url(), 2))
                    .reportDir(report).json(Path.of("-")).build();
            ByteArrayOutputStream jsonOut = new ByteArrayOutputStream();
            BenchResult result = Bench.run(options, null, new PrintStream(jsonOut, true, StandardCharsets.UTF_8),
                    out);
            assertEquals(2, result.targets().size());
            RunResult f = result.targets().get(0).runs().get(0);
            RunResult s = result.targets().get(1).runs().get(0);
            // The slow stub cannot answer in under 3 ms, whatever the machine is doing; the fast one usually does.
            assertTrue(s.uncorrected().getMinValue() >= 2900, "slow min " + s.uncorrected().getMinValue());
            assertTrue(f.uncorrected().getMinValue() < s.uncorrected().getMinValue(),
                    f.uncorrected().getMinValue() + " vs " + s.uncorrected().getMinValue());
            String html = Files.readString(report.resolve("index.html"));
            assertTrue(html.contains(">fast &mdash; ") && html.contains(">slow &mdash; "), "both servers");
            String json = jsonOut.toString(StandardCharsets.UTF_8);
            assertTrue(json.startsWith("{") && json.contains("\"label\": \"slow\""), json);
            assertTrue(output().contains("Requests/sec:"), "text goes to stderr with --json -");
        }
    }

    @Test
    void profileUnavailableIsReportedNotFatal() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        try (StubServer stub = StubServer.fixed(100); StubServer busy = StubServer.withProfileStatus(100, 409);
             StubServer none = StubServer.withProfileStatus(100, 404)) {
            RunResult refused = single(Target.external("a", stub.url())
                    .withAdminUrl(URI.create("http://127.0.0.1:" + closedPort)));
            assertEquals(2, refused.profiles().size());
            assertTrue(refused.profiles().get(0).error().startsWith("profile unavailable: connection refused"),
                    refused.profiles().toString());
            RunResult conflict = single(Target.external("b", busy.url()).withAdminUrl(busy.url()));
            assertTrue(conflict.profiles().get(0).error().startsWith("profile unavailable: HTTP 409"),
                    conflict.profiles().toString());
            RunResult missing = single(Target.external("c", none.url()).withAdminUrl(none.url()));
            assertTrue(missing.profiles().get(0).error().startsWith("profile unavailable: HTTP 404"),
                    missing.profiles().toString());
            assertTrue(output().contains("Profile cpu: profile unavailable:"), output());
        }
    }

    @Test
    void aRunAgainstAServerOnThisMachineCarriesItsCpuPerAnswer() throws IOException {
        // The stub listens in this JVM, so its "server" CPU is this JVM's: the stub and the generator together.
        try (StubServer stub = StubServer.fixed(100)) {
            BenchOptions options = quick().rate(400).duration(Duration.ofSeconds(3))
                    .target(Target.external("stub", stub.url())).json(dir.resolve("cpu.json")).build();
            RunResult r = Bench.run(options, null, out, out).targets().get(0).runs().get(0);
            if (!Files.isDirectory(Path.of("/proc/self/fd"))) {
                assertTrue(Double.isNaN(r.serverCores()), "no /proc, no figure");
                return;
            }
            assertTrue(r.serverCores() > 0 && r.serverCores() <= Runtime.getRuntime().availableProcessors() + 0.1,
                    "cores: " + r.serverCores());
            assertEquals(r.serverCores() * 1e6 / r.achievedRate(), r.serverMicrosPerRequest(), 1e-6);
            assertTrue(output().matches("(?s).*Server CPU: \\d+\\.\\d\\d cores \\(\\d+\\.\\d\\d of them lower-priority "
                    + "background threads\\), \\d+\\.\\dus per answer.*"), output());
            assertTrue(r.serverBackgroundCores() >= 0 && r.serverBackgroundCores() <= r.serverCores(),
                    "this JVM's threads at a nice above its own: " + r.serverBackgroundCores());
            String json = Files.readString(dir.resolve("cpu.json"));
            assertTrue(json.matches("(?s).*\"server_cpu\": \\{\\s*\"cores\": [0-9.]+,\\s*\"us_per_request\": [0-9.]+,"
                    + "\\s*\"background_cores\": [0-9.]+\\s*}.*"), json);
            assertTrue(json.contains("\"host_steal_share\": "), json);
            assertTrue(json.matches("(?s).*\"server_cores\": \\[\\s*[0-9.]+,\\s*[0-9.]+,\\s*[0-9.]+\\s*].*"),
                    "the timeline's seconds each with the server's CPU: " + json);
            assertTrue(json.matches("(?s).*\"server_background_threads\": \\[\\s*\\{[^\\[\\]]*}\\s*,"
                    + "\\s*\\{[^\\[\\]]*}\\s*,\\s*\\{[^\\[\\]]*}\\s*].*"),
                    "and its background threads by name, an object per second: " + json);
        }
    }

    private RunResult single(Target target) {
        BenchOptions options = quick().rate(100).target(target).reportDir(dir.resolve(target.label()))
                .profileEvents(List.of("cpu", "alloc")).build();
        return Bench.run(options, null, out, out).targets().get(0).runs().get(0);
    }

    @Test
    void unreachableServerIsAClearError() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        BenchOptions options = quick().rate(100)
                .target(Target.external("gone", URI.create("http://127.0.0.1:" + closedPort))).build();
        BenchException e = org.junit.jupiter.api.Assertions.assertThrows(BenchException.class,
                () -> Bench.run(options, null, out, out));
        assertTrue(e.getMessage().startsWith("cannot connect to 127.0.0.1:" + closedPort), e.getMessage());
    }
}
