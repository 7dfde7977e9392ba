package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bisection of {@code bench tail --sustainable}, against a stub server and against pretend holds. */
class SustainableSearchTest {

    private static final TailOptions THREE_STEPS = new TailOptions(Duration.ZERO, Duration.ofMillis(500),
            Duration.ofMillis(500), 0.5, TailPhase.parseList("put,get"), Workload.parseMix("get=90,put=10"),
            Slo.parse("p99=10ms"), Duration.ofSeconds(1), null, true, Duration.ofMillis(500), 3);

    private final List<Double> asked = new ArrayList<>();
    private final ByteArrayOutputStream text = new ByteArrayOutputStream();

    /**
     * Searches a pretend server that keeps p99 at 2 ms up to {@code holds} req/s and 50 ms above it; the trials at
     * {@code disturbedAt} miss the first time with {@code disturbance} (a warning the generator would have given).
     */
    private TailResult.SustainableResult search(double holds, double disturbedAt, Warning disturbance) {
        return SustainableSearch.search(TailPhase.GET, 1000, THREE_STEPS, rate -> {
            boolean disturbed = rate == disturbedAt && !asked.contains(rate);
            asked.add(rate);
            long[] latencies = new long[2000];
            Arrays.fill(latencies, rate <= holds && !disturbed ? 2_000 : 50_000);
            // Second 2 of the hold carries its p99, as a stall would.
            Timeline timeline = new Timeline(10_000, List.of(new Timeline.Second(500, 0, 1_000, 2_000, 3_000),
                    new Timeline.Second(400, 300, 40_000, latencies[0], 60_000),
                    new Timeline.Second(500, 0, 1_100, 2_100, 2_500)));
            RunResult r = FormatTest.sample(rate, timeline, latencies);
            return disturbed ? r.withWarnings(List.of(disturbance)) : r;
        }, new PrintStream(text, true, StandardCharsets.UTF_8));
    }

    @Test
    void aMissWhileTheHostStoleIsMeasuredAgainAndOnlyTheSecondCounts() {
        TailResult.SustainableResult r = search(700, 500,
                Honesty.hostSteal(0.08).orElseThrow());
        String out = text.toString(StandardCharsets.UTF_8);

        assertEquals(List.of(500.0, 500.0, 750.0, 625.0), asked, out);
        assertEquals(625, r.rate(), out);
        assertEquals(List.of(500.0, 750.0, 625.0), r.trials().stream().map(p -> p.result().targetRate()).toList());
        assertEquals(List.of(true, false, true), r.trials().stream().map(SweepOutcome.Point::held).toList());
        assertEquals(1, r.measuredAgain().size());
        assertEquals(500, r.measuredAgain().get(0).result().targetRate());
        assertTrue(out.contains("measured again: missed while the host took CPU time (steal)"), out);
        assertTrue(out.contains("1 of 3 s above 10.00ms; worst: s2 p99 50.00ms max 60.00ms (400 answers)\n"), out);
        assertTrue(out.contains("0 of 3 s above 10.00ms\n"), "a held trial names no worst second: " + out);
    }

    @Test
    void aMissWhileTheGeneratorLaggedIsMeasuredAgain() {
        TailResult.SustainableResult r = search(1000, 500,
                new Warning(Warning.Kind.GENERATOR_LAG, "the generator fell behind"));
        assertEquals(List.of(500.0, 500.0, 750.0, 875.0), asked);
        assertEquals(875, r.rate());
    }

    @Test
    void theServersOwnMissIsNotMeasuredAgain() {
        TailResult.SustainableResult r = search(300, -1, null);
        assertEquals(List.of(500.0, 250.0, 375.0), asked);
        assertEquals(250, r.rate());
        assertEquals(List.of(), r.measuredAgain());
    }

    @Test
    void aFullGeneratorCoreIsNotMeasuredAgain() {
        // The same rate would meet the same full core: the miss stands.
        TailResult.SustainableResult r = search(1000, 500,
                new Warning(Warning.Kind.GENERATOR_CPU_FULL, "the generator used 97% of its one CPU"));
        assertEquals(List.of(500.0, 250.0, 375.0), asked);
        assertEquals(375, r.rate());
    }

    @Test
    void eachTrialStartsAfterTheServerHasSettled() {
        try (StubServer server = StubServer.serial(1000)) {
            TailOptions tail = new TailOptions(Duration.ZERO, Duration.ofMillis(500), Duration.ofMillis(500), 0.5,
                    TailPhase.parseList("put,get"), Workload.parseMix("get=90,put=10"), Slo.parse("p99=10ms"),
                    Duration.ofSeconds(1), null, true, Duration.ofMillis(500), 2);
            BenchOptions options = BenchOptions.builder().target(Target.external("stub", server.url()))
                    .connections(4).threads(1).timeout(Duration.ofSeconds(5)).commandLine("test").build();
            // What the stub had answered each time the search asked for the server to settle.
            List<Long> answeredAtEachWait = new ArrayList<>();
            TailResult.SustainableResult result = SustainableSearch.find(new TailSession(options, tail), tail,
                    server.url(), "stub", new RequestEncoder(server.url(), List.of(), 64, 42), new AtomicLong(),
                    TailPhase.GET, 800, 800, () -> answeredAtEachWait.add(server.requests()),
                    new PrintStream(text, true, StandardCharsets.UTF_8));

            assertEquals(2, result.trials().size());
            // A trial measured again (the generator lagged on a loaded machine) waits again too.
            assertEquals(2 + result.measuredAgain().size(), answeredAtEachWait.size(), "one wait per trial run");
            assertEquals(0, answeredAtEachWait.get(0), "the first wait comes before any request");
            assertTrue(answeredAtEachWait.get(1) > 0, "the second wait comes after the first trial");
            assertTrue(server.requests() > answeredAtEachWait.get(answeredAtEachWait.size() - 1),
                    "and the last before the last trial");
        }
    }
}
