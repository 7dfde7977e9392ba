package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The per-second timeline against stubs on real sockets: it accounts for every answer of the window, and a stall or
 * a workload switch shows in the seconds where it happened. Bounds only use what noise cannot undo (noise adds
 * latency, it never removes any).
 */
class TimelineTest {

    private final ByteArrayOutputStream text = new ByteArrayOutputStream();

    private String output() {
        return text.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theWorstSecondsAreThoseWithTheHighestP99AmongSecondsWithAnswers() {
        Timeline t = new Timeline(10_000, List.of(new Timeline.Second(10, 0, 1, 5_000, 6_000),
                new Timeline.Second(10, 2, 1, 90_000, 95_000), new Timeline.Second(0, 0, 0, 0, 0),
                new Timeline.Second(10, 1, 1, 70_000, 80_000)));
        assertEquals(List.of(1, 3), t.worstSeconds(2));
        assertEquals(List.of(1, 3, 0), t.worstSeconds(5), "a second without answers is not among them");
    }

    @Test
    void timelineSumsMatchTheTotals() {
        // A 300 ms stall about 1.5 s into the 3 s window (400 req/s, 0.5 s warm-up): many answers above 10 ms.
        try (StubServer stub = StubServer.stalling(500, 800, 300)) {
            BenchOptions options = BenchOptions.builder().target(Target.external("stub", stub.url()))
                    .rate(400).connections(8).threads(2).warmup(Duration.ofMillis(500))
                    .duration(Duration.ofSeconds(3)).timeout(Duration.ofSeconds(5))
                    .workload(Workload.of(Operation.URL, 1, KeyDistribution.UNIFORM, false, ValueSize.fixed(0)))
                    .build();
            PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
            RunResult r = Bench.run(options, null, out, out).targets().get(0).runs().get(0);
            Timeline t = r.timeline();

            assertEquals(3, t.seconds().size(), output());
            assertEquals(10_000, t.thresholdMicros(), "the default SLO's bound");
            assertEquals(r.completed(), t.completed(), "every answer of the window is in some second");
            long maxOfSeconds = t.seconds().stream().mapToLong(Timeline.Second::max).max().orElse(0);
            assertEquals(r.corrected().getMaxValue(), r.corrected().highestEquivalentValue(maxOfSeconds),
                    "the worst second holds the window's maximum");
            // The histogram can only tell apart values in different buckets: the two counts may differ by the
            // answers in the bucket that holds the threshold itself.
            long above = r.corrected().getCountBetweenValues(t.thresholdMicros() + 1,
                    r.corrected().getHighestTrackableValue());
            long slack = r.corrected().getCountAtValue(t.thresholdMicros());
            assertTrue(Math.abs(t.overThreshold() - above) <= slack,
                    t.overThreshold() + " above the threshold by second, " + above + " by the histogram\n" + output());
            assertTrue(t.overThreshold() > 0, "the stall's answers are late\n" + output());
            assertTrue(t.secondsAbove(t.thresholdMicros()) >= 1, "the stall's second shows\n" + output());
        }
    }

    @Test
    void aPhaseSwitchIsVisibleInTheTimeline() {
        // PUTs take 200 ms, GETs nothing: one session, PUT for 2 s then GET for 2 s on the same connections.
        try (StubServer stub = StubServer.slowPuts(0, 200_000)) {
            RequestEncoder encoder = new RequestEncoder(stub.url(), List.of(), 8, 1);
            AtomicLong cursor = new AtomicLong();
            Workload put = Workload.of(Operation.PUT, 100, KeyDistribution.UNIFORM, false, ValueSize.fixed(8));
            Workload get = Workload.of(Operation.GET, 100, KeyDistribution.WRITTEN, false, ValueSize.fixed(8));
            LoadGenerator.Plan plan = new LoadGenerator.Plan(stub.url(), 32, 1, Duration.ofSeconds(5), 10_000,
                    List.of(new LoadGenerator.Phase("PUT", 100, Duration.ofSeconds(2), true,
                                    t -> encoder.workload(put, null, cursor, 7)),
                            new LoadGenerator.Phase("GET", 100, Duration.ofSeconds(2), true,
                                    t -> encoder.workload(get, null, cursor, 8))));
            List<LoadGenerator.Window> windows = LoadGenerator.run(plan, null).windows();
            assertEquals(List.of("PUT", "GET"), windows.stream().map(LoadGenerator.Window::name).toList());
            Timeline puts = RunResult.merge("stub", stub.url(), "put", 100, 32, windows.get(0), List.of()).timeline();
            RunResult getRun = RunResult.merge("stub", stub.url(), "get", 100, 32, windows.get(1), List.of());
            Timeline gets = getRun.timeline();

            for (Timeline.Second s : puts.seconds()) {
                assertTrue(s.completed() > 0 && s.p50() >= 190_000, "every PUT second is slow: " + puts);
                assertEquals(s.completed(), s.overThreshold(), "every PUT is above 10 ms: " + puts);
            }
            // The last GET second is fast unless the machine held a GET back for 200 ms, half the time.
            Timeline.Second last = gets.seconds().get(gets.seconds().size() - 1);
            assertTrue(last.completed() > 0 && last.p50() < 190_000, "the GET phase is fast by its end: " + gets);
            assertTrue(getRun.statusCounts().containsKey(200), "GETs answered 200: " + getRun.statusCounts());
            assertTrue(cursor.get() > 0, "the PUTs wrote ids the GETs read");
        }
    }

    @Test
    void aWorstSecondSaysWhatTheMachineDidInIt() {
        Timeline t = new Timeline(10_000, List.of(new Timeline.Second(10, 0, 1, 5_000, 6_000),
                new Timeline.Second(1500, 900, 1, 141_000, 190_000), new Timeline.Second(1500, 20, 1, 12_000, 13_000)))
                .withMachine(List.of(new Timeline.Machine(0.5, 0.01, 0.0, 0.0),
                        new Timeline.Machine(1.0, 0.02, 0.004, 0.008), Timeline.Machine.UNKNOWN));
        assertEquals(1.0, t.seconds().get(1).machine().serverCores());
        assertTrue(Double.isNaN(t.seconds().get(2).machine().serverCores()), "unknown stays unknown");
        assertEquals(List.of("s2 p99 141.00ms max 190.00ms (1500 answers; server 1.00 cores, 0.02 background; "
                        + "host steal 0.4%, 0.8% of the server's CPU)", "s3 p99 12.00ms max 13.00ms (1500 answers)"),
                t.worstSecondsText(3, 10_000), "within the bound (s1) left out, unknown figures not printed");
    }

    @Test
    void aWorstSecondNamesTheBackgroundThreadsThatRanInIt() {
        Map<String, Double> threads = new LinkedHashMap<>();
        threads.put("rocksdb:low", 0.104);
        threads.put("rocksdb:high", 0.02);
        threads.put("larder-warmer", 0.004);
        Timeline t = new Timeline(10_000, List.of(new Timeline.Second(1500, 900, 1, 141_000, 190_000),
                new Timeline.Second(1500, 20, 1, 12_000, 13_000)))
                .withMachine(List.of(new Timeline.Machine(1.0, 0.128, 0.0, 0.0, threads),
                        new Timeline.Machine(0.9, 0.0, 0.0, 0.0, Map.of())));
        assertEquals(List.of("s1 p99 141.00ms max 190.00ms (1500 answers; server 1.00 cores, 0.13 background: "
                        + "rocksdb:low 0.10, rocksdb:high 0.02; host steal 0.0%, 0.0% of the server's CPU)",
                "s2 p99 12.00ms max 13.00ms (1500 answers; server 0.90 cores, 0.00 background; host steal 0.0%, "
                        + "0.0% of the server's CPU)"),
                t.worstSecondsText(3, 10_000), "the busiest first; one under 0.01 cores not named");
        assertEquals(List.of("rocksdb:low", "rocksdb:high", "larder-warmer"),
                List.copyOf(t.seconds().get(0).machine().backgroundThreads().keySet()), "the order given is kept");
    }

    @Test
    void secondsAboveTheBoundAreCountedStolenByTheServersCpusStealOrElseTheMachines() {
        Timeline t = new Timeline(10_000, List.of(
                new Timeline.Second(100, 50, 1, 40_000, 50_000), // above, 5% of the server's CPUs stolen
                new Timeline.Second(100, 50, 1, 40_000, 50_000), // above, the machine 9% but the server's CPUs 1%
                new Timeline.Second(100, 50, 1, 40_000, 50_000), // above, server's CPUs unknown, machine 4%
                new Timeline.Second(100, 0, 1, 5_000, 6_000), // within, 30% stolen: not a miss
                new Timeline.Second(0, 0, 0, 0, 0), // no answers, 30% stolen
                new Timeline.Second(100, 50, 1, 40_000, 50_000), // above, nothing known
                new Timeline.Second(100, 50, 1, 40_000, 50_000))) // above, exactly at the share: not more
                .withMachine(List.of(new Timeline.Machine(1.0, 0, 0.04, 0.05), new Timeline.Machine(1.0, 0, 0.09, 0.01),
                        new Timeline.Machine(1.0, 0, 0.04, Double.NaN), new Timeline.Machine(1.0, 0, 0.3, 0.3),
                        new Timeline.Machine(1.0, 0, 0.3, 0.3), Timeline.Machine.UNKNOWN,
                        new Timeline.Machine(1.0, 0, 0.03, 0.03)));
        assertEquals(5, t.secondsAbove(10_000));
        assertEquals(2, t.secondsAboveWithSteal(10_000, 0.03), "s1 and s3");
        assertEquals(1, t.secondsAboveWithSteal(10_000, 0.04), "s1 only");
        assertEquals(3, t.secondsAboveWithSteal(10_000, 0.02), "s1, s3 and s7");
        Timeline unknown = new Timeline(10_000, List.of(new Timeline.Second(100, 50, 1, 40_000, 50_000)));
        assertEquals(-1, unknown.secondsAboveWithSteal(10_000, 0.03), "no steal figure at all");
    }

    @Test
    void eachSecondCarriesTheServersCpuInThatSecond() throws InterruptedException {
        // The stub listens in this JVM, so the "server" is this JVM: a thread that spins through the window's second
        // second puts a core into that second and into no other.
        if (!java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self/task"))) {
            return;
        }
        AtomicLong spun = new AtomicLong();
        Thread[] spinner = new Thread[1];
        LoadGenerator.Listener spinInSecondTwo = (start, end) -> {
            spinner[0] = new Thread(() -> {
                long wait = start + 1_050_000_000L - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
                while (System.nanoTime() < start + 1_950_000_000L) {
                    spun.incrementAndGet();
                }
            }, "spin-in-second-two");
            spinner[0].start();
        };
        try (StubServer stub = StubServer.fixed(100)) {
            RequestEncoder encoder = new RequestEncoder(stub.url(), List.of(), 8, 1);
            Workload get = Workload.of(Operation.GET, 100, KeyDistribution.UNIFORM, false, ValueSize.fixed(8));
            LoadGenerator.Plan plan = new LoadGenerator.Plan(stub.url(), 8, 1, Duration.ofSeconds(5), 10_000,
                    // The warm-up takes the generator's and the stub's compilations, a core's worth of their own.
                    List.of(new LoadGenerator.Phase("warm-up", 200, Duration.ofSeconds(2), false,
                                    t -> encoder.workload(get, null, new AtomicLong(), 7)),
                            new LoadGenerator.Phase("GET", 200, Duration.ofSeconds(3), true,
                                    t -> encoder.workload(get, null, new AtomicLong(), 7))));
            LoadGenerator.Window w = LoadGenerator.run(plan, spinInSecondTwo).windows().get(0);
            spinner[0].join();
            Timeline t = RunResult.merge("stub", stub.url(), "get", 200, 8, w, List.of()).timeline();

            assertEquals(3, w.machineSeconds().size(), w.machineSeconds().toString());
            assertEquals(w.machineSeconds(), t.seconds().stream().map(Timeline.Second::machine).toList(),
                    "the merged timeline carries them");
            double[] cores = w.machineSeconds().stream().mapToDouble(Timeline.Machine::serverCores).toArray();
            assertTrue(spun.get() > 0);
            // Every second saw the generator and the stub; the second second also 0.9 s of spinning, the others not.
            // A margin of 0.3 core still tells the seconds apart on a machine whose host takes half the spinner's.
            assertTrue(cores[1] > cores[0] + 0.3 && cores[1] > cores[2] + 0.3, java.util.Arrays.toString(cores));
            for (Timeline.Machine m : w.machineSeconds()) {
                assertTrue(m.hostSteal() >= 0 && m.hostSteal() <= 1, m.toString());
                assertTrue(m.serverCpusSteal() >= 0 && m.serverCpusSteal() <= 1, "this JVM's CPUs: " + m);
            }
        }
    }
}
