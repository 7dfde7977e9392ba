package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The warnings on synthetic results, where each threshold can be hit exactly. */
class HonestyTest {

    private static RunResult result(double rate, long completed, double seconds, int connections,
                                    long correctedMicros, long uncorrectedMicros, long lagMicros,
                                    SocketErrors errors) {
        return result(rate, completed, seconds, connections, correctedMicros, uncorrectedMicros, lagMicros, errors, 0);
    }

    private static RunResult result(double rate, long completed, double seconds, int connections,
                                    long correctedMicros, long uncorrectedMicros, long lagMicros,
                                    SocketErrors errors, long behindAtStart) {
        Histogram c = GeneratorThread.newHistogram();
        Histogram u = GeneratorThread.newHistogram();
        Histogram lag = GeneratorThread.newHistogram();
        c.recordValueWithCount(correctedMicros, completed);
        u.recordValueWithCount(uncorrectedMicros, completed);
        lag.recordValueWithCount(lagMicros, completed);
        TreeMap<Integer, Long> status = new TreeMap<>();
        status.put(200, completed);
        return new RunResult("t", URI.create("http://127.0.0.1:1"), "get", rate, connections, 1, seconds, c, u, lag,
                completed, 0, errors, status, new double[0], 0, 0, behindAtStart, List.of(), List.of(),
                Timeline.EMPTY);
    }

    private static List<Warning.Kind> kinds(RunResult r) {
        return Honesty.check(r).stream().map(Warning::kind).toList();
    }

    @Test
    void aCleanRunHasNoWarnings() {
        assertEquals(List.of(), kinds(result(1000, 10_000, 10, 64, 2000, 1500, 50, SocketErrors.NONE)));
    }

    @Test
    void achievedRateBelowNinetyNinePercent() {
        assertEquals(List.of(), kinds(result(1000, 9_900, 10, 64, 2000, 1500, 50, SocketErrors.NONE)));
        assertEquals(List.of(Warning.Kind.RATE_NOT_ACHIEVED),
                kinds(result(1000, 9_899, 10, 64, 2000, 1500, 50, SocketErrors.NONE)));
    }

    @Test
    void tooFewConnectionsForRateTimesP99() {
        // 10000/s x 10 ms = 100 connections needed
        assertEquals(List.of(Warning.Kind.TOO_FEW_CONNECTIONS),
                kinds(result(10_000, 100_000, 10, 64, 12_000, 10_000, 50, SocketErrors.NONE)));
        assertEquals(List.of(), kinds(result(10_000, 100_000, 10, 128, 12_000, 10_000, 50, SocketErrors.NONE)));
    }

    @Test
    void generatorLagThatShapesTheTail() {
        assertEquals(List.of(Warning.Kind.GENERATOR_LAG),
                kinds(result(1000, 10_000, 10, 64, 5_000, 1500, 2_000, SocketErrors.NONE)));
        // below the 1 ms floor
        assertEquals(List.of(), kinds(result(1000, 10_000, 10, 64, 2_000, 1500, 900, SocketErrors.NONE)));
        // small against a slow server's tail
        assertEquals(List.of(), kinds(result(1000, 10_000, 10, 64, 500_000, 1500, 2_000, SocketErrors.NONE)));
    }

    @Test
    void aSweepMeasuresAgainOnlyAMissWhileTheGeneratorLaggedOrTheHostStole() {
        RunResult lagging = checked(result(1000, 10_000, 10, 64, 25_000, 1500, 20_000, SocketErrors.NONE));
        RunResult slowServer = checked(result(1000, 10_000, 10, 64, 25_000, 1500, 50, SocketErrors.NONE));
        RunResult stolen = slowServer.withWarnings(List.of(Honesty.hostSteal(0.08).orElseThrow()));
        RunResult fullGenerator = slowServer.withWarnings(List.of(new Warning(Warning.Kind.GENERATOR_CPU_FULL,
                "the generator used 97% of its one CPU")));
        List<String> missed = List.of("p99 25.00ms > 10.00ms");
        assertTrue(new SweepOutcome.Point(lagging, missed).missedWhileDisturbed());
        assertTrue(new SweepOutcome.Point(lagging, missed).disturbance().startsWith("the generator lagged (send lag "));
        assertTrue(new SweepOutcome.Point(stolen, missed).missedWhileDisturbed());
        assertEquals("the host took CPU time (steal)", new SweepOutcome.Point(stolen, missed).disturbance());
        assertFalse(new SweepOutcome.Point(slowServer, missed).missedWhileDisturbed(),
                "the server's own miss stands");
        assertFalse(new SweepOutcome.Point(fullGenerator, missed).missedWhileDisturbed(),
                "a full generator core is met again at the same rate");
        assertFalse(new SweepOutcome.Point(lagging, List.of()).missedWhileDisturbed(), "a held rate stands");
    }

    private static RunResult checked(RunResult r) {
        return r.withWarnings(Honesty.check(r));
    }

    @Test
    void warmupBacklogSpillingIntoTheWindow() {
        // 1000/s for 10 s: 100 requests is 1% of the window, the limit.
        assertEquals(List.of(), kinds(result(1000, 10_000, 10, 64, 2000, 1500, 50, SocketErrors.NONE, 100)));
        assertEquals(List.of(Warning.Kind.WARMUP_BACKLOG),
                kinds(result(1000, 10_000, 10, 64, 2000, 1500, 50, SocketErrors.NONE, 101)));
    }

    @Test
    void socketErrorsAndClosedLoop() {
        List<Warning.Kind> k = kinds(result(1000, 10_000, 10, 64, 2000, 1500, 50, new SocketErrors(1, 2, 0, 3)));
        assertEquals(List.of(Warning.Kind.SOCKET_ERRORS), k);
        RunResult closed = result(0, 10_000, 10, 64, 2000, 2000, 0, SocketErrors.NONE);
        assertEquals(List.of(Warning.Kind.CLOSED_LOOP), kinds(closed));
        assertTrue(closed.closedLoop());
        assertEquals(1.0, closed.achievedRatio());
        assertFalse(kinds(result(1000, 0, 10, 64, 1, 1, 0, SocketErrors.NONE)).isEmpty());
    }

    @Test
    void theHostTakingMoreThanAFewPercentOfTheCpuIsSaid() {
        assertEquals(Warning.Kind.HOST_STEAL, Honesty.hostSteal(0.128).orElseThrow().kind());
        assertTrue(Honesty.hostSteal(0.128).orElseThrow().message().contains("12.8%"));
        assertTrue(Honesty.hostSteal(Honesty.STEAL_SHARE).isEmpty(), "at the threshold: quiet enough");
        assertTrue(Honesty.hostSteal(0.004).isEmpty());
        assertTrue(Honesty.hostSteal(Double.NaN).isEmpty(), "unknown: no warning");
        RunResult quiet = result(1000, 10_000, 10, 64, 1000, 1000, 0, SocketErrors.NONE);
        assertEquals(kinds(quiet), Honesty.check(withMachine(quiet, 0.01, Double.NaN), 0).stream()
                .map(Warning::kind).toList());
        List<Warning> stolen = Honesty.check(withMachine(quiet, 0.2, Double.NaN), 0);
        assertEquals(Warning.Kind.HOST_STEAL, stolen.get(stolen.size() - 1).kind(),
                "the window's checks, then the host's");
    }

    @Test
    void aServerWithNoCpuToSpareAtAFixedRateIsSaid() {
        RunResult full = withCores(result(45_900, 459_000, 10, 64, 1000, 1000, 0, SocketErrors.NONE), 0.998);
        Warning w = Honesty.serverCpuFull(full, 1).orElseThrow();
        assertEquals(Warning.Kind.SERVER_CPU_FULL, w.kind());
        assertTrue(w.message().contains("99.8% of the time on the 1 CPU(s)") && w.message().contains("21.7us"),
                w.message());
        assertFalse(w.message().contains("lower-priority"), "nothing said of a background it did not read");
        assertTrue(Honesty.serverCpuFull(full, 2).isEmpty(), "half of two CPUs is room to spare");
        assertTrue(Honesty.serverCpuFull(full, 0).isEmpty(), "unknown affinity: no warning");
        RunResult nginx = withCores(result(45_900, 459_000, 10, 64, 1000, 1000, 0, SocketErrors.NONE), 0.58);
        assertTrue(Honesty.serverCpuFull(nginx, 1).isEmpty());
        RunResult unknown = result(45_900, 459_000, 10, 64, 1000, 1000, 0, SocketErrors.NONE);
        assertTrue(Honesty.serverCpuFull(unknown, 1).isEmpty(), "no CPU figure: no warning");
        RunResult closed = withCores(result(0, 900_000, 10, 64, 1000, 1000, 0, SocketErrors.NONE), 1.0);
        assertTrue(Honesty.serverCpuFull(closed, 1).isEmpty(), "a closed loop is meant to fill the core");
        List<Warning> all = Honesty.check(withMachine(full, 0.2, full.serverCores()), 1);
        assertEquals(List.of(Warning.Kind.HOST_STEAL, Warning.Kind.SERVER_CPU_FULL),
                all.subList(all.size() - 2, all.size()).stream().map(Warning::kind).toList());
    }

    @Test
    void aCoreFilledByTheServersBackgroundThreadsIsNoFullRequestPath() {
        // Session 44's PUT trials: the process 96.5-99.9% busy at every rate, nice-19 flushes and compactions filling
        // what the loop left.
        RunResult base = result(45_900, 459_000, 10, 64, 1000, 1000, 0, SocketErrors.NONE);
        RunResult busyBackground = withServer(base, 0.99, 0.30);
        assertEquals(0.69, busyBackground.serverForegroundCores(), 1e-9);
        assertTrue(Honesty.serverCpuFull(busyBackground, 1).isEmpty(), "the request path had 31% of the core spare");
        RunResult fullLoop = withServer(base, 0.995, 0.02);
        Warning w = Honesty.serverCpuFull(fullLoop, 1).orElseThrow();
        assertTrue(w.message().contains("request path was busy 97.5% of the time on the 1 CPU(s) it may run on, not "
                + "counting the 2.0% its lower-priority background threads took")
                && w.message().contains("21.7us"), w.message());
        assertEquals(0.99, withServer(base, 0.99, Double.NaN).serverForegroundCores(), 1e-9,
                "unknown background: all of it counts");
        assertTrue(Honesty.serverCpuFull(withServer(base, 0.99, Double.NaN), 1).isPresent());
    }

    @Test
    void aGeneratorWithNoCpuToSpareAtAFixedRateIsSaid() {
        RunResult base = result(45_900, 459_000, 10, 64, 1000, 1000, 0, SocketErrors.NONE);
        RunResult full = withGenerator(base, 0.93, 1);
        Warning w = Honesty.generatorCpuFull(full).orElseThrow();
        assertEquals(Warning.Kind.GENERATOR_CPU_FULL, w.kind());
        assertTrue(w.message().contains("93.0% of the time on the 1 CPU(s)"), w.message());
        assertTrue(Honesty.generatorCpuFull(withGenerator(base, 0.93, 2)).isEmpty(), "two CPUs: room to spare");
        assertTrue(Honesty.generatorCpuFull(withGenerator(base, 0.85, 1)).isEmpty(), "below the share");
        assertTrue(Honesty.generatorCpuFull(withGenerator(base, Double.NaN, 1)).isEmpty(), "unknown: no warning");
        assertTrue(Honesty.generatorCpuFull(withGenerator(base, 0.93, 0)).isEmpty(), "unknown CPUs: no warning");
        RunResult closed = withGenerator(result(0, 900_000, 10, 64, 1000, 1000, 0, SocketErrors.NONE), 1.0, 1);
        assertTrue(Honesty.generatorCpuFull(closed).isEmpty(), "a closed loop is meant to fill the core");
        List<Warning> all = Honesty.check(full, 1);
        assertEquals(Warning.Kind.GENERATOR_CPU_FULL, all.get(all.size() - 1).kind(), "the generator's check last");
    }

    private static RunResult withGenerator(RunResult r, double cores, int cpus) {
        return new RunResult(r.target(), r.url(), r.workload(), r.targetRate(), r.connections(), r.threads(),
                r.seconds(), r.corrected(), r.uncorrected(), r.lag(), r.completed(), r.bytes(), r.errors(),
                r.statusCounts(), r.rateSamples(), r.inFlightAtEnd(), r.behindAtEnd(), r.behindAtStart(),
                r.warnings(), r.profiles(), r.timeline(), r.hostSteal(), r.serverCores(), r.serverBackgroundCores(),
                cores, cpus);
    }

    private static RunResult withServer(RunResult r, double cores, double backgroundCores) {
        return withMachine(r, r.hostSteal(), cores, backgroundCores);
    }

    private static RunResult withCores(RunResult r, double cores) {
        return withMachine(r, Double.NaN, cores);
    }

    private static RunResult withMachine(RunResult r, double hostSteal, double cores) {
        return withMachine(r, hostSteal, cores, Double.NaN);
    }

    private static RunResult withMachine(RunResult r, double hostSteal, double cores, double backgroundCores) {
        return new RunResult(r.target(), r.url(), r.workload(), r.targetRate(), r.connections(), r.threads(),
                r.seconds(), r.corrected(), r.uncorrected(), r.lag(), r.completed(), r.bytes(), r.errors(),
                r.statusCounts(), r.rateSamples(), r.inFlightAtEnd(), r.behindAtEnd(), r.behindAtStart(),
                r.warnings(), r.profiles(), r.timeline(), hostSteal, cores, backgroundCores, Double.NaN, 0);
    }
}
