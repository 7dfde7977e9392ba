package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The generator against servers whose behaviour is known. Bounds are deliberately wide: the machine running the
 * tests is small and shared, and these tests are about the method (what is measured from when), not about speed.
 */
class AccuracyTest {

    private final ByteArrayOutputStream text = new ByteArrayOutputStream();

    private RunResult run(StubServer stub, double rate, int connections, Duration warmup, Duration duration) {
        BenchOptions options = BenchOptions.builder()
                .target(Target.external("stub", stub.url()))
                .rate(rate).connections(connections).threads(1)
                .warmup(warmup).duration(duration).timeout(Duration.ofSeconds(5))
                .workload(Workload.of(Operation.URL, 1, KeyDistribution.UNIFORM, false, ValueSize.fixed(0)))
                .build();
        PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
        return Bench.run(options, null, out, out).targets().get(0).runs().get(0);
    }

    private String output() {
        return text.toString(StandardCharsets.UTF_8);
    }

    @Test
    void fixedOneMillisecondServiceShowsP50OfAboutOneMillisecond() {
        try (StubServer stub = StubServer.fixed(1000)) {
            RunResult r = run(stub, 400, 8, Duration.ofSeconds(1), Duration.ofSeconds(3));
            long p50 = r.percentile(50);
            long u50 = r.uncorrected().getValueAtPercentile(50);
            assertTrue(p50 >= 900 && p50 <= 5000, "corrected p50 " + p50 + "us\n" + output());
            assertTrue(u50 >= 900 && u50 <= 5000, "uncorrected p50 " + u50 + "us\n" + output());
            assertTrue(r.completed() > 400 * 3 * 0.8, "completed " + r.completed() + "\n" + output());
            assertTrue(r.percentile(50) >= u50, "corrected below uncorrected\n" + output());
        }
    }

    @Test
    void aSingleStallShowsInCorrectedPercentilesAndHidesInUncorrectedOnes() {
        // 500 req/s: request 1250 arrives about 1.5 s into the 4 s window (after a 1 s warm-up).
        try (StubServer stub = StubServer.stalling(1000, 1250, 500)) {
            RunResult r = run(stub, 500, 8, Duration.ofSeconds(1), Duration.ofSeconds(4));
            long c999 = r.percentile(99.9);
            long cMax = r.corrected().getMaxValue();
            long c99 = r.percentile(99);
            long u99 = r.uncorrected().getValueAtPercentile(99);
            assertTrue(c999 >= 400_000, "corrected p99.9 " + c999 + "us\n" + output());
            assertTrue(cMax >= 400_000, "corrected max " + cMax + "us\n" + output());
            // ~250 requests were due during the stall: about 12% of the window waited behind it.
            assertTrue(c99 >= 200_000, "corrected p99 " + c99 + "us\n" + output());
            // Only the 8 requests in flight when it began were themselves slow (0.4% of them): the uncorrected p99
            // stays far below (relative bound, as a busy test machine can slow everything).
            assertTrue(u99 * 4 < c99, "uncorrected p99 " + u99 + "us vs corrected " + c99 + "us\n" + output());
        }
    }

    @Test
    void anOverloadedServerMakesTheWarningsFire() {
        // One request at a time, 2 ms each: 500 req/s at most, asked for 1500.
        try (StubServer stub = StubServer.serial(2000)) {
            RunResult r = run(stub, 1500, 16, Duration.ofMillis(500), Duration.ofSeconds(2));
            assertTrue(r.warningKinds().contains(Warning.Kind.RATE_NOT_ACHIEVED), r.warnings() + "\n" + output());
            assertTrue(r.warningKinds().contains(Warning.Kind.TOO_FEW_CONNECTIONS), r.warnings() + "\n" + output());
            assertTrue(r.achievedRate() < 1000, "achieved " + r.achievedRate());
            assertTrue(output().contains("WARNING: achieved"), output());
            assertTrue(r.behindAtEnd() > 0, "behind " + r.behindAtEnd());
        }
    }
}
