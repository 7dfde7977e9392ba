package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hold round's step down, against a pretend server that holds every rate up to its capacity. */
class TuneHoldTest {

    private static final Slo SLO = Slo.parse("p99=10ms");

    private final List<Double> asked = new ArrayList<>();
    private final List<Integer> waitedBefore = new ArrayList<>();

    /** Holds {@code from} on a server that keeps p99 at 2 ms up to {@code capacity} req/s and 50 ms above it. */
    private List<SweepOutcome.Point> stepDown(double from, double capacity, boolean time) {
        return TuneHold.stepDown(from, SLO, rate -> {
            asked.add(rate);
            long[] latencies = new long[2000];
            Arrays.fill(latencies, rate <= capacity ? 2_000 : 50_000);
            return FormatTest.sample(rate, latencies);
        }, () -> waitedBefore.add(asked.size()), () -> time);
    }

    @Test
    void stepsDownByAFifthUntilARateHolds() {
        List<SweepOutcome.Point> holds = stepDown(1000, 700, true);
        assertEquals(List.of(1000.0, 800.0, 640.0), asked);
        assertEquals(List.of(false, false, true), holds.stream().map(SweepOutcome.Point::held).toList());
        assertEquals(640, TuneHold.heldRate(holds));
        assertEquals(List.of(0, 1, 2), waitedBefore, "the server settles before every hold");
    }

    @Test
    void aRateThatHoldsAtOnceEndsTheSearch() {
        List<SweepOutcome.Point> holds = stepDown(1000, 1000, true);
        assertEquals(List.of(1000.0), asked);
        assertEquals(1000, TuneHold.heldRate(holds));
    }

    @Test
    void nothingHoldsAfterThreeHoldsIsZeroBelowTheLowest() {
        List<SweepOutcome.Point> holds = stepDown(1000, 100, true);
        assertEquals(TuneHold.MAX_HOLDS, holds.size());
        assertEquals(0, TuneHold.heldRate(holds));
        assertEquals(640, TuneHold.lowestTried(holds));
    }

    @Test
    void aMissWhileTheGeneratorLaggedIsHeldAgainAtTheSameRate() {
        List<Double> lagged = new ArrayList<>();
        List<SweepOutcome.Point> holds = TuneHold.stepDown(1000, SLO, rate -> {
            asked.add(rate);
            long[] latencies = new long[2000];
            boolean first = asked.size() == 1;
            Arrays.fill(latencies, first ? 50_000 : 2_000);
            RunResult r = FormatTest.sample(rate, latencies);
            if (first) {
                lagged.add(rate);
                return r.withWarnings(List.of(new Warning(Warning.Kind.GENERATOR_LAG, "the generator fell behind")));
            }
            return r;
        }, () -> waitedBefore.add(asked.size()), () -> true);
        assertEquals(List.of(1000.0, 1000.0), asked, "the lagging miss is measured again, not stepped down from");
        assertEquals(List.of(1000.0), lagged);
        assertEquals(1, holds.size(), "only the second measurement is a hold");
        assertEquals(1000, TuneHold.heldRate(holds));
        assertEquals(List.of(0, 1), waitedBefore, "the server settles before the second measurement too");
    }

    @Test
    void theServersOwnMissIsNotMeasuredAgain() {
        stepDown(1000, 900, true);
        assertEquals(List.of(1000.0, 800.0), asked);
    }

    @Test
    void noTimeLeftStopsAfterTheFirstHold() {
        List<SweepOutcome.Point> holds = stepDown(1000, 700, false);
        assertEquals(List.of(1000.0), asked);
        assertEquals(0, TuneHold.heldRate(holds));
        assertEquals(-1, TuneHold.heldRate(List.of()), "not held at all");
    }
}
