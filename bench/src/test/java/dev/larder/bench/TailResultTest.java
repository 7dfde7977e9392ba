package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** What a tail run derives from its windows: a phase's CPU per answer against saturation's. */
class TailResultTest {

    /** A window of {@code seconds} at {@code rate} answers/s (0: closed loop) with the server using {@code cores}. */
    private static RunResult window(double targetRate, double rate, double cores, double backgroundCores) {
        return window(targetRate, rate, cores, backgroundCores, Timeline.EMPTY);
    }

    /** {@link #window(double, double, double, double)} with the per-second timeline given. */
    private static RunResult window(double targetRate, double rate, double cores, double backgroundCores,
                                    Timeline timeline) {
        double seconds = 10;
        long completed = Math.round(rate * seconds);
        Histogram c = GeneratorThread.newHistogram();
        c.recordValueWithCount(500, completed);
        TreeMap<Integer, Long> status = new TreeMap<>();
        status.put(200, completed);
        return new RunResult("larder", URI.create("http://127.0.0.1:1"), "get", targetRate, 64, 1, seconds, c,
                c.copy(), GeneratorThread.newHistogram(), completed, 0, SocketErrors.NONE, status, new double[0], 0, 0,
                0, List.of(), List.of(), timeline, 0, cores, backgroundCores, 0.5, 1);
    }

    private static TailResult result(RunResult put, RunResult get, List<TailResult.PhaseResult> phases) {
        TailOptions tail = new TailOptions(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), 0.75,
                TailPhase.parseList("put,get,mix"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                Duration.ofSeconds(1), null, false, Duration.ofSeconds(1), 1);
        BenchOptions options = BenchOptions.builder()
                .target(Target.external("larder", URI.create("http://127.0.0.1:1"))).commandLine("test").build();
        Instant now = Instant.parse("2026-11-29T14:00:00Z");
        return new TailResult(options, tail, now, now, "machine", "larder", URI.create("http://127.0.0.1:1"),
                List.of(), null, null, put, get, phases, List.of(), null, null);
    }

    @Test
    void aPhasesCpuPerAnswerIsSetAgainstItsKindsCostAtSaturation() {
        // Saturated: PUT 80k/s on one core (12.5 us), GET 50k/s on one core (20 us); the 90/10 mix 19.25 us.
        RunResult put = window(0, 80_000, 1.0, 0.10);
        RunResult get = window(0, 50_000, 1.0, 0.0);
        TailResult.PhaseResult putPhase = new TailResult.PhaseResult(TailPhase.PUT, 60_000, 0,
                window(60_000, 60_000, 0.9, 0.05), null);
        TailResult.PhaseResult getPhase = new TailResult.PhaseResult(TailPhase.GET, 37_500, 30,
                window(37_500, 40_000, 1.0, 0.02), null);
        TailResult.PhaseResult mixPhase = new TailResult.PhaseResult(TailPhase.MIX, 40_000, 60,
                window(40_000, 40_000, 0.9, 0.0), null);
        TailResult r = result(put, get, List.of(putPhase, getPhase, mixPhase));

        assertEquals(12.5, r.saturatedMicrosPerRequest(TailPhase.PUT), 1e-9);
        assertEquals(20.0, r.saturatedMicrosPerRequest(TailPhase.GET), 1e-9);
        assertEquals(0.9 * 20.0 + 0.1 * 12.5, r.saturatedMicrosPerRequest(TailPhase.MIX), 1e-9);
        assertEquals(15.0 / 12.5, r.costOverSaturated(putPhase), 1e-9, "15 us per PUT at 60k/s");
        assertEquals(25.0 / 20.0, r.costOverSaturated(getPhase), 1e-9, "by the answers, not the target rate");
        assertEquals(22.5 / 19.25, r.costOverSaturated(mixPhase), 1e-9);

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TailText.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), r);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains(" x sat "), text);
        assertTrue(text.matches("(?s).*\\n\\s+1 PUT .* 15\\.0us\\s+1\\.20x\\s+0\\.05 .*"), text);
        assertTrue(text.contains("x sat: CPU per answer at the phase's fixed rate over CPU per answer at saturation "
                + "(the capacity runs above): 1.17-1.25x here, so the phases kept 0.85-0.98 cores of the server's "
                + "request path busy"), text);
        String json = TailJson.of(r);
        assertTrue(json.contains("\"cpu_over_saturated\": 1.2,"), json);
        assertTrue(json.contains("\"cpu_over_saturated\": 1.25,"), json);
    }

    @Test
    void aPhaseSaysHowManyOfItsSecondsAboveTheSloTheHostStoleFrom() {
        Timeline.Second slow = new Timeline.Second(1000, 500, 1, 40_000, 50_000);
        Timeline.Second fast = new Timeline.Second(1000, 0, 1, 2_000, 3_000);
        Timeline stolen = new Timeline(10_000, List.of(slow, slow, slow, fast)).withMachine(List.of(
                new Timeline.Machine(1.0, 0, 0.2, 0.25), new Timeline.Machine(1.0, 0, 0.0, 0.0),
                new Timeline.Machine(1.0, 0, 0.1, 0.12), new Timeline.Machine(1.0, 0, 0.3, 0.3)));
        TailResult.PhaseResult measured = new TailResult.PhaseResult(TailPhase.PUT, 1000, 0,
                window(1000, 1000, 0.9, 0.0, stolen), null);
        TailResult.PhaseResult unknown = new TailResult.PhaseResult(TailPhase.GET, 1000, 4,
                window(1000, 1000, 0.9, 0.0, new Timeline(10_000, List.of(slow, fast))), null);
        TailResult r = result(window(0, 80_000, 1.0, 0.0), window(0, 50_000, 1.0, 0.0), List.of(measured, unknown));
        assertEquals(3, measured.secondsAbove(10_000));
        assertEquals(2, measured.secondsAboveStolen(10_000), "the second with nothing stolen is the server's");
        assertEquals(-1, unknown.secondsAboveStolen(10_000));

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TailText.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), r);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("stolen: of those, seconds in which the host took more than 3% of the server's CPU"),
                text);
        assertTrue(text.matches("(?s).*\\n\\s+1 PUT .* 3\\s+2\\s+3s .*"), text);
        assertTrue(text.matches("(?s).*\\n\\s+2 GET .* 1\\s+-\\s+1s .*"), text);
        String json = TailJson.of(r);
        assertTrue(json.matches("(?s).*\"seconds_above_slo\": 3,\\s+\"seconds_above_slo_stolen\": 2,.*"), json);
        assertTrue(json.matches("(?s).*\"seconds_above_slo\": 1,\\s+\"seconds_above_slo_stolen\": null,.*"), json);
    }

    @Test
    void theLoopsSpinIsLeftOutOfAPhasesCpuPerAnswerAndItsRatio() {
        // Saturated GET 50k/s on one core: 20 us. The phase: 40k/s on a full core, 3 of its 10 s a loop's spin.
        RunResult put = window(0, 80_000, 1.0, 0.0);
        RunResult get = window(0, 50_000, 1.0, 0.0);
        TailResult.PhaseResult spinning = new TailResult.PhaseResult(TailPhase.GET, 40_000, 0,
                window(40_000, 40_000, 1.0, 0.05), null, 0, 3.0);
        TailResult.PhaseResult sleeping = new TailResult.PhaseResult(TailPhase.GET, 40_000, 30,
                window(40_000, 40_000, 1.0, 0.05), null, 0, Double.NaN);
        TailResult r = result(put, get, List.of(spinning, sleeping));

        assertEquals(0.3, spinning.spinCores(), 1e-9);
        assertEquals(17.5, spinning.serverMicrosPerRequest(), 1e-9, "0.7 of a core over 40k answers");
        assertEquals(17.5 / 20.0, r.costOverSaturated(spinning), 1e-9);
        assertEquals(0.65, spinning.requestPathCores(), 1e-9, "neither the background nor the spin");
        assertEquals(0, sleeping.spinCores(), 1e-9, "no counter: nothing to leave out");
        assertEquals(25.0 / 20.0, r.costOverSaturated(sleeping), 1e-9);

        String text = text(r);
        assertTrue(text.matches("(?s).*\\n\\s+1 GET .* 17\\.5us\\s+0\\.88x\\s+0\\.05 .*"), text);
        assertTrue(text.contains("the event loops spun through their coalescing windows "
                + "(larder_io_coalesce_spin_seconds_total, read at each phase boundary), cores: 1 GET 0.30, "
                + "2 GET 0.00; cpu/req and x sat leave it out"), text);
        assertTrue(text.contains("so the phases kept 0.65-0.95 cores of the server's request path busy"), text);
        String json = TailJson.of(r);
        assertTrue(json.contains("\"coalesce_spin_seconds\": 3,") && json.contains("\"coalesce_spin_seconds\": null,"),
                json);

        TailResult none = result(put, get, List.of(sleeping));
        assertFalse(text(none).contains("spun through"), text(none));
    }

    @Test
    void withoutTheServersCpuThereIsNoRatio() {
        RunResult put = window(0, 80_000, Double.NaN, Double.NaN);
        RunResult get = window(0, 50_000, Double.NaN, Double.NaN);
        TailResult.PhaseResult phase = new TailResult.PhaseResult(TailPhase.PUT, 60_000, 0,
                window(60_000, 60_000, Double.NaN, Double.NaN), null);
        TailResult r = result(put, get, List.of(phase));
        assertTrue(Double.isNaN(r.costOverSaturated(phase)));

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TailText.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), r);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertFalse(text.contains("x sat: "), text);
        assertTrue(TailJson.of(r).contains("\"cpu_over_saturated\": null,"));
    }

    @Test
    void eachPhasesWriteStallIsPrintedAndWrittenAndItsCauseNamedOnlyWhenThereWasOne() {
        RunResult put = window(0, 80_000, 1.0, 0.0);
        RunResult get = window(0, 50_000, 1.0, 0.0);
        TailResult stalled = result(put, get, List.of(
                new TailResult.PhaseResult(TailPhase.PUT, 60_000, 0, window(60_000, 60_000, 1.0, 0.0), null, 1.25),
                new TailResult.PhaseResult(TailPhase.GET, 37_500, 30, window(37_500, 37_500, 1.0, 0.0), null, 0)));
        String text = text(stalled);
        assertTrue(text.contains("RocksDB write stalls (larder_rocksdb_write_stall_seconds_total, read at each phase "
                + "boundary): 1 PUT 1.25 s, 2 GET 0.00 s"), text);
        assertTrue(text.contains("RocksDB slowed or stopped writes") && text.contains("(--memtables)"), text);
        String json = TailJson.of(stalled);
        assertTrue(json.contains("\"write_stall_seconds\": 1.25,") && json.contains("\"write_stall_seconds\": 0,"),
                json);

        TailResult none = result(put, get, List.of(
                new TailResult.PhaseResult(TailPhase.PUT, 60_000, 0, window(60_000, 60_000, 1.0, 0.0), null, 0)));
        assertTrue(text(none).contains("read at each phase boundary): 1 PUT 0.00 s"), text(none));
        assertFalse(text(none).contains("RocksDB slowed or stopped writes"), text(none));

        TailResult unknown = result(put, get, List.of(
                new TailResult.PhaseResult(TailPhase.PUT, 60_000, 0, window(60_000, 60_000, 1.0, 0.0), null)));
        assertFalse(text(unknown).contains("RocksDB write stalls"), text(unknown));
        assertTrue(TailJson.of(unknown).contains("\"write_stall_seconds\": null,"), TailJson.of(unknown));
    }

    private static String text(TailResult r) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TailText.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), r);
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
