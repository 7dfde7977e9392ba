package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench tail} end to end against stubs: capacities, phases, nginx beside them, sustainable rates, outputs. */
class TailBenchTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream text = new ByteArrayOutputStream();

    private String output() {
        return text.toString(StandardCharsets.UTF_8);
    }

    private static TailOptions tail(double load, boolean sustainable, StubServer nginx) {
        return new TailOptions(Duration.ofMillis(300), Duration.ofMillis(700), Duration.ofSeconds(1), load,
                TailPhase.parseList("put,get,mix,put,get"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                Duration.ofSeconds(1), nginx == null ? null : nginx.url(), sustainable, Duration.ofSeconds(1), 1);
    }

    /** A tail run against {@code larder} on 8 connections, text into {@link #text}, JSON and report under dir. */
    private TailResult run(StubServer larder, TailOptions tail) {
        BenchOptions options = BenchOptions.builder().target(Target.external("stub", larder.url()))
                .connections(8).threads(1).timeout(Duration.ofSeconds(5)).reportDir(dir.resolve("report"))
                .json(dir.resolve("tail.json")).commandLine("larder bench tail test").build();
        PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
        return TailBench.run(options, tail, out, out);
    }

    @Test
    void tinyRunWritesTextJsonAndReport() throws IOException {
        // Serial stubs (one request at a time, 1 ms / 0.5 ms each): capacities about 1000 and 2000 req/s, so the
        // run is light on a shared machine.
        try (StubServer larder = StubServer.serial(1000); StubServer nginx = StubServer.serial(500)) {
            Path report = dir.resolve("report");
            Path json = dir.resolve("tail.json");
            TailResult r = run(larder, tail(0.5, true, nginx));

            assertEquals(5, r.phases().size());
            assertEquals(List.of(TailPhase.PUT, TailPhase.GET, TailPhase.MIX, TailPhase.PUT, TailPhase.GET),
                    r.phases().stream().map(TailResult.PhaseResult::kind).toList());
            // A serial 1 ms stub cannot answer more than 1000/s, whatever the machine does.
            assertTrue(r.putCapacity().achievedRate() > 0 && r.putCapacity().achievedRate() <= 1100,
                    "PUT capacity " + r.putCapacity().achievedRate());
            for (int i = 0; i < r.phases().size(); i++) {
                TailResult.PhaseResult p = r.phases().get(i);
                assertEquals(i, p.startSeconds(), 1e-9, "phases follow each other, one second each");
                double put = r.putCapacity().achievedRate();
                double get = r.getCapacity().achievedRate();
                // The mix's capacity: each request costs what it costs alone (weighted harmonic mean).
                double capacity = switch (p.kind()) {
                    case PUT -> put;
                    case GET -> get;
                    case MIX -> 1 / (0.9 / get + 0.1 / put);
                };
                assertEquals(Math.round(0.5 * capacity), p.rate(), 0.5, "phase " + i);
                assertEquals(p.larder().completed(), p.larder().timeline().completed(), "phase " + i);
                assertTrue(p.nginx() != null && p.nginx().targetRate() == p.rate(), "nginx at the same rate");
            }
            assertEquals(2, r.sustainable().size());
            // GET before PUT: a PUT search's holds would multiply the data the GET search reads.
            assertEquals(List.of(TailPhase.GET, TailPhase.PUT),
                    r.sustainable().stream().map(TailResult.SustainableResult::op).toList());
            for (TailResult.SustainableResult s : r.sustainable()) {
                assertEquals(1, s.trials().size(), "one bisection step");
                assertEquals(Math.round(s.capacity() / 2), s.trials().get(0).result().targetRate(), 0.5);
                assertEquals(s.capacity() / 2, s.resolution(), 1e-9);
            }

            String t = output();
            assertTrue(t.contains(" # op        rate   achieved"), t);
            assertTrue(t.contains("Sustainable rate: the highest rate held for 1s"), t);
            assertTrue(t.matches("(?s).*\\n\\s+5 GET .*"), t);

            String summary = Files.readString(json);
            assertTrue(summary.contains("\"tool\": \"larder bench tail\""), summary);
            assertTrue(summary.contains("\"switch_cost_seconds\": "), summary);
            assertTrue(summary.contains("\"timeline\": {"), summary);
            assertTrue(summary.contains("\"sustainable\": ["), summary);
            // The phases' wall-clock origin comes after the warm-up (300 ms), both capacity runs (700 ms each) and the
            // unmeasured lead-in of the phases' session.
            assertTrue(!r.phasesStarted().isBefore(r.started().plusMillis(1700).plus(TailBench.LEAD_IN)),
                    r.started() + " " + r.phasesStarted());
            assertTrue(t.contains("lead-in at the first phase's rate"), t);
            assertTrue(summary.contains("\"phases_started\": \"" + r.phasesStarted() + "\""), summary);
            assertTrue(summary.contains("\"started\": \"" + r.phasesStarted().plusSeconds(4) + "\""),
                    "the fifth phase's wall-clock start: " + summary);

            String html = Files.readString(report.resolve("index.html"));
            assertTrue(html.contains("Latency over time"), "the plot");
            assertTrue(html.contains(">nginx p99</text>"), "nginx overlaid");
            assertTrue(html.contains(">MIX " + Units.rate(r.phases().get(2).rate()) + "</text>"), "switches marked");
            assertFalse(html.contains("<script"), "no scripts");
            assertTrue(Files.readString(report.resolve("charts/latency-over-time.svg")).startsWith("<svg"));
            assertTrue(Files.exists(report.resolve("hgrm/larder-5-get.hgrm")));
            assertTrue(Files.exists(report.resolve("hgrm/nginx-3-mix.hgrm")));
        }
    }

    @Test
    void aMachineThatSlowsDuringThePhasesIsReadAndWarnedOf() throws IOException {
        // nginx's stub answers 0.5 ms each, serially, until its traffic pauses (the capacity runs and the phases
        // against the server come between the first two readings), then 1.5 ms each: a machine a third as fast.
        try (StubServer larder = StubServer.serial(1000);
             StubServer nginx = StubServer.serialSlowingAfterPause(500, 400, 1500)) {
            TailOptions tail = new TailOptions(Duration.ZERO, Duration.ofMillis(700), Duration.ofSeconds(1), 0.5,
                    TailPhase.parseList("put,get,mix"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                    Duration.ofSeconds(1), nginx.url(), false, Duration.ofSeconds(1), 1, null, false, false,
                    TailOptions.SUSTAINABLE_OPS, Duration.ofMillis(500));
            TailResult r = run(larder, tail);

            MachineSpeed speed = r.machineSpeed();
            // Serial stubs bound the readings whatever this machine does: at most 2000/s, then at most 667/s.
            assertTrue(speed.beforeCapacity() > 0 && speed.beforeCapacity() <= 2200, speed.describe());
            assertTrue(speed.afterPhases() > 0 && speed.afterPhases() <= 740, speed.describe());
            assertTrue(speed.afterNginx() > 0 && speed.afterNginx() <= 740, speed.describe());
            List<Warning> warnings = r.machineSpeedWarnings();
            assertTrue(warnings.stream().anyMatch(w -> w.kind() == Warning.Kind.MACHINE_SPEED_CHANGED
                    && w.message().contains("right after the phases")), warnings.toString());
            String t = output();
            assertTrue(t.contains("machine speed before the capacity runs: nginx closed-loop GET "), t);
            assertTrue(t.contains("Machine speed: nginx closed-loop GET for 500ms: "), t);
            assertTrue(t.contains("WARNING (machine speed): this machine answered nginx at 0."), t);
            String summary = Files.readString(dir.resolve("tail.json"));
            assertTrue(summary.matches("(?s).*\"machine_speed\": \\{\\s*\"probe_seconds\": 0\\.5,.*"), summary);
            assertTrue(summary.contains("\"phases_ratio\": "), summary);
            assertTrue(summary.contains("right after the phases"), summary);
            String html = Files.readString(dir.resolve("report").resolve("index.html"));
            assertTrue(html.contains("<p>Machine speed: nginx closed-loop GET"), html);
            assertTrue(html.contains("<div class=\"warn\">this machine answered nginx at 0."), html);
        }
    }

    @Test
    void withoutTheProbeNoSpeedIsRead() throws IOException {
        try (StubServer larder = StubServer.serial(1000); StubServer nginx = StubServer.serial(500)) {
            TailResult r = run(larder, new TailOptions(Duration.ZERO, Duration.ofMillis(500), Duration.ofSeconds(1),
                    0.5, TailPhase.parseList("put"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                    Duration.ofSeconds(1), nginx.url(), false, Duration.ofSeconds(1), 1));
            assertEquals(null, r.machineSpeed());
            assertTrue(r.machineSpeedWarnings().isEmpty());
            assertFalse(output().contains("achine speed"), output());
            assertTrue(Files.readString(dir.resolve("tail.json")).contains("\"machine_speed\": null"));
        }
    }

    @Test
    void theSpeedProbeNeedsNginxAndIsNotNegative() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TailOptions(
                Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, List.of(TailPhase.PUT),
                Workload.parseMix("get=1"), Slo.parse("p99=10ms"), Duration.ofSeconds(1), null, false,
                Duration.ofSeconds(1), 5, null, false, false, TailOptions.SUSTAINABLE_OPS, Duration.ofSeconds(5)));
        assertTrue(e.getMessage().startsWith("speed-probe: needs --nginx URL"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new TailOptions(
                Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, List.of(TailPhase.PUT),
                Workload.parseMix("get=1"), Slo.parse("p99=10ms"), Duration.ofSeconds(1), URI.create("http://h:1/"),
                false, Duration.ofSeconds(1), 5, null, false, false, TailOptions.SUSTAINABLE_OPS,
                Duration.ofSeconds(-1)));
        assertEquals("speed-probe: PT-1S (expected: >= 0)", e.getMessage());
        TailOptions on = new TailOptions(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5,
                List.of(TailPhase.PUT), Workload.parseMix("get=1"), Slo.parse("p99=10ms"), Duration.ofSeconds(1),
                URI.create("http://h:1/"), false, Duration.ofSeconds(1), 5, null, false, false,
                TailOptions.SUSTAINABLE_OPS, Duration.ofSeconds(5));
        assertTrue(on.describe().endsWith(" speed-probe=5s"), on.describe());
    }

    @Test
    void theControlRunsNginxAtTheSameFractionOfItsOwnCapacity() throws IOException {
        // The server's phases at fixed rates, so only the control's rates follow --load (of nginx's capacities).
        try (StubServer larder = StubServer.serial(1000); StubServer nginx = StubServer.serial(250)) {
            Path report = dir.resolve("report");
            Path json = dir.resolve("tail.json");
            TailOptions tail = new TailOptions(Duration.ZERO, Duration.ofMillis(700), Duration.ofSeconds(1), 0.5,
                    TailPhase.parseList("put,get,mix"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                    Duration.ofSeconds(1), nginx.url(), false, Duration.ofSeconds(1), 1,
                    TailOptions.parseRates("put=100,get=100,mix=100"), true);
            TailResult r = run(larder, tail);

            TailResult.OwnLoad own = r.nginxOwnLoad();
            double put = own.putCapacity().achievedRate();
            double get = own.getCapacity().achievedRate();
            // A serial 0.25 ms stub answers at most 4000/s; the server's stub (1 ms) at most 1000/s.
            assertTrue(put > 0 && put <= 4400 && get > 0 && get <= 4400, put + " " + get);
            assertEquals(List.of(TailPhase.PUT, TailPhase.GET, TailPhase.MIX),
                    own.phases().stream().map(TailResult.OwnLoadPhase::kind).toList());
            assertEquals(Math.round(0.5 * put), own.phases().get(0).rate(), 0.5);
            assertEquals(Math.round(0.5 * get), own.phases().get(1).rate(), 0.5);
            assertEquals(Math.round(0.5 / (0.9 / get + 0.1 / put)), own.phases().get(2).rate(), 0.5);
            for (TailResult.OwnLoadPhase p : own.phases()) {
                assertEquals(p.rate(), p.result().targetRate(), 0.5, "the control's window ran at its rate");
                assertTrue(p.result().completed() > 0, "nginx answered in " + p.kind());
            }
            for (TailResult.PhaseResult p : r.phases()) {
                assertEquals(100, p.rate(), 0.5, "the server's own phases keep their fixed rates");
            }
            long bound = tail.slo().thresholdMicros();
            long within = own.phases().stream().filter(p -> p.result().percentile(99) <= bound).count();
            assertEquals(within, own.phasesWithin(bound));

            String t = output();
            assertTrue(t.contains("nginx capacity PUT (closed loop): "), t);
            assertTrue(t.contains("Control: nginx at 50% of its own capacity"), t);
            assertTrue(t.contains("phases with p99 <= 10.00ms: stub " + r.phasesWithin(bound) + " of 3 at 50% of its "
                    + "capacity, nginx " + within + " of 3 at 50% of its own"), t);
            String summary = Files.readString(json);
            assertTrue(summary.contains("\"nginx_own_load\": {"), summary);
            assertTrue(summary.contains("\"phases_within_slo\": " + within), summary);
            assertTrue(Files.readString(report.resolve("index.html")).contains("Control: nginx at 50% of its own"));
        }
    }

    @Test
    void theSameSustainableSearchRunsAgainstNginxBetweenZeroAndItsOwnCapacities() throws IOException {
        // The server's stub answers at most 1000/s, nginx's (0.25 ms, serial) at most 4000/s: nginx's bisection must
        // start from its own capacities, not the server's.
        try (StubServer larder = StubServer.serial(1000); StubServer nginx = StubServer.serial(250)) {
            TailOptions tail = new TailOptions(Duration.ZERO, Duration.ofMillis(700), Duration.ofSeconds(1), 0.5,
                    TailPhase.parseList("put"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                    Duration.ofSeconds(1), nginx.url(), true, Duration.ofSeconds(1), 1, null, false, true);
            TailResult r = run(larder, tail);

            assertEquals(List.of(TailPhase.GET, TailPhase.PUT),
                    r.nginxSustainable().stream().map(TailResult.SustainableResult::op).toList());
            for (TailResult.SustainableResult n : r.nginxSustainable()) {
                TailResult.SustainableResult own = r.sustainable().stream().filter(s -> s.op() == n.op())
                        .findFirst().orElseThrow();
                assertTrue(n.capacity() > 1.5 * own.capacity() && n.capacity() <= 4400,
                        n.op() + ": nginx's bound " + n.capacity() + " against the server's " + own.capacity());
                assertEquals(1, n.trials().size(), "one bisection step");
                assertEquals(Math.round(n.capacity() / 2), n.trials().get(0).result().targetRate(), 0.5);
                assertTrue(n.trials().get(0).result().completed() > 0, "nginx answered the " + n.op() + " hold");
            }
            assertEquals(r.nginxCapacity().achievedRate(), r.nginxSustainable(TailPhase.GET).capacity(), 1e-9);

            String t = output();
            assertTrue(t.contains("nginx capacity PUT (closed loop): "), t);
            assertTrue(t.contains("the same sustainable search, after the same write phases"), t);
            TailResult.SustainableResult get = r.nginxSustainable(TailPhase.GET);
            assertTrue(t.contains(String.format(java.util.Locale.ROOT, "  nginx GET  sustainable %s req/s",
                    get.rate() > 0 ? Units.rate(get.rate()) : "below " + Units.rate(Math.round(get.resolution())))),
                    t);
            String summary = Files.readString(dir.resolve("tail.json"));
            assertTrue(summary.matches("(?s).*\"nginx_sustainable\": \\[\\s*\\{\\s*\"op\": \"GET\".*"), summary);
            assertTrue(summary.contains("nginx-sustainable=true"), summary);
            assertTrue(Files.readString(dir.resolve("report").resolve("index.html"))
                    .contains("<td class=\"l\">nginx PUT</td>"));
        }
    }

    @Test
    void aSearchOfOneOpSearchesThatOpAloneOnTheServerAndOnNginx() throws IOException {
        try (StubServer larder = StubServer.serial(1000); StubServer nginx = StubServer.serial(250)) {
            TailOptions tail = new TailOptions(Duration.ZERO, Duration.ofMillis(700), Duration.ofSeconds(1), 0.5,
                    TailPhase.parseList("put"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                    Duration.ofSeconds(1), nginx.url(), true, Duration.ofSeconds(1), 1, null, false, true,
                    TailOptions.parseSustainableOps("get"));
            TailResult r = run(larder, tail);

            assertEquals(List.of(TailPhase.GET),
                    r.sustainable().stream().map(TailResult.SustainableResult::op).toList());
            assertEquals(List.of(TailPhase.GET),
                    r.nginxSustainable().stream().map(TailResult.SustainableResult::op).toList());
            assertEquals(1, r.sustainable(TailPhase.GET).trials().size(), "one bisection step");
            assertTrue(r.sustainable(TailPhase.GET).trials().get(0).result().completed() > 0, "the GET hold ran");
            String t = output();
            assertFalse(t.contains("nginx capacity PUT (closed loop)"), "nginx's PUT capacity serves no search: " + t);
            assertTrue(t.contains("  GET  sustainable "), t);
            assertFalse(t.contains("  PUT  sustainable "), t);
            assertTrue(Files.readString(dir.resolve("tail.json")).contains("sustainable-ops=get"));
            assertTrue(Files.readString(dir.resolve("report").resolve("index.html"))
                    .contains("<td>not searched (--sustainable-ops)</td>"), "PUT's row says it was left out");
        }
    }

    @Test
    void sustainableOpsAreGetOrPutEachOnceAndSearchedGetFirst() {
        assertEquals(List.of(TailPhase.PUT, TailPhase.GET), TailOptions.parseSustainableOps("put, get"));
        TailOptions putFirst = new TailOptions(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5,
                List.of(TailPhase.PUT), Workload.parseMix("get=1"), Slo.parse("p99=10ms"), Duration.ofSeconds(1),
                null, true, Duration.ofSeconds(1), 5, null, false, false, List.of(TailPhase.PUT, TailPhase.GET));
        assertEquals(List.of(TailPhase.GET, TailPhase.PUT), putFirst.sustainableOps());
        assertFalse(putFirst.describe().contains("sustainable-ops"), "both ops is the default: " + putFirst.describe());
        assertEquals(List.of(TailPhase.GET, TailPhase.PUT), tail(0.5, true, null).sustainableOps());
        IllegalArgumentException mix = assertThrows(IllegalArgumentException.class,
                () -> TailOptions.parseSustainableOps("get,mix"));
        assertEquals("sustainable-ops: 'mix' (expected: get, put or get,put)", mix.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TailOptions.parseSustainableOps(""));
        assertThrows(IllegalArgumentException.class, () -> TailOptions.parseSustainableOps("get,"));
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> new TailOptions(
                Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, List.of(TailPhase.PUT),
                Workload.parseMix("get=1"), Slo.parse("p99=10ms"), Duration.ofSeconds(1), null, true,
                Duration.ofSeconds(1), 5, null, false, false, TailOptions.parseSustainableOps("get,get")));
        assertEquals("sustainable-ops: get twice (expected: get, put or get,put)", twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new TailOptions(Duration.ZERO, Duration.ofSeconds(1),
                Duration.ofSeconds(1), 0.5, List.of(TailPhase.PUT), Workload.parseMix("get=1"), Slo.parse("p99=10ms"),
                Duration.ofSeconds(1), null, true, Duration.ofSeconds(1), 5, null, false, false, List.of()));
    }

    @Test
    void nginxsSustainableSearchNeedsNginxAndTheSearch() {
        IllegalArgumentException noNginx = assertThrows(IllegalArgumentException.class, () -> new TailOptions(
                Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, List.of(TailPhase.PUT),
                Workload.parseMix("get=1"), Slo.parse("p99=10ms"), Duration.ofSeconds(1), null, true,
                Duration.ofSeconds(1), 5, null, false, true));
        assertTrue(noNginx.getMessage().startsWith("nginx-sustainable: needs --nginx URL and --sustainable"),
                noNginx.getMessage());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TailOptions(
                Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, List.of(TailPhase.PUT),
                Workload.parseMix("get=1"), Slo.parse("p99=10ms"), Duration.ofSeconds(1),
                URI.create("http://127.0.0.1:18090"), false, Duration.ofSeconds(1), 5, null, false, true));
        assertTrue(e.getMessage().startsWith("nginx-sustainable: needs"), e.getMessage());
    }

    @Test
    void theControlNeedsNginx() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TailOptions(
                Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, List.of(TailPhase.PUT),
                Workload.parseMix("get=1"), Slo.parse("p99=10ms"), Duration.ofSeconds(1), null, false,
                Duration.ofSeconds(1), 5, null, true));
        assertTrue(e.getMessage().startsWith("nginx-own-load: needs --nginx URL"), e.getMessage());
    }

    @Test
    void fixedRatesReplaceLoadTimesCapacityForTheKindsTheyName() {
        TailOptions fixed = new TailOptions(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5,
                TailPhase.parseList("put,get,mix"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                Duration.ofSeconds(1), null, false, Duration.ofSeconds(1), 5, TailOptions.parseRates("get=300, put=700"),
                false);
        assertEquals(700, fixed.rate(TailPhase.PUT, 10_000));
        assertEquals(300, fixed.rate(TailPhase.GET, 10_000));
        assertEquals(5_000, fixed.rate(TailPhase.MIX, 10_000));
        assertTrue(fixed.describe().endsWith(" rates=put=700,get=300"), fixed.describe());
        assertFalse(tail(0.5, false, null).describe().contains("rates="));
    }

    @Test
    void optionsRejectNonsense() {
        assertThrows(IllegalArgumentException.class, () -> tail(0, false, null));
        assertThrows(IllegalArgumentException.class, () -> tail(1.01, false, null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TailOptions(
                Duration.ZERO, Duration.ofSeconds(1), Duration.ZERO, 0.5, List.of(TailPhase.PUT),
                Workload.parseMix("get=1"), Slo.parse("p99=10ms"), Duration.ofSeconds(1), null, false,
                Duration.ofSeconds(1), 5));
        assertEquals("phase-duration: PT0S (expected: > 0)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TailPhase.parseList("put,fly"));
        assertThrows(IllegalArgumentException.class, () -> TailOptions.parseRates("put=0"));
        assertThrows(IllegalArgumentException.class, () -> TailOptions.parseRates("put=1,put=2"));
        assertThrows(IllegalArgumentException.class, () -> TailOptions.parseRates("get=fast"));
        assertThrows(IllegalArgumentException.class, () -> TailOptions.parseRates("fly=10"));
        assertThrows(IllegalArgumentException.class, () -> TailOptions.parseRates(","));
        assertThrows(IllegalArgumentException.class, () -> new TailOptions(Duration.ZERO, Duration.ofSeconds(1),
                Duration.ofSeconds(1), 0.5, List.of(TailPhase.MIX), Workload.parseMix("get=1,delete=1"),
                Slo.parse("p99=10ms"), Duration.ofSeconds(1), null, false, Duration.ofSeconds(1), 5));
    }
}
