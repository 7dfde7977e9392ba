package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ranking and the "keep the default" note, from made-up measurements and holds. */
class TuneResultTest {

    private static final Slo SLO = Slo.parse("p99=10ms");

    private static TuneResult.Entry entry(String workers, String stage, double[] breakdowns, double... holds) {
        TuneSpace.Candidate c = workers == null ? TuneSpace.Candidate.DEFAULT
                : new TuneSpace.Candidate(Map.of(TuneSpace.Dimension.WORKERS, workers));
        List<TuneResult.Measurement> m = new ArrayList<>();
        for (double b : breakdowns) {
            m.add(new TuneResult.Measurement(stage, b, new SweepOutcome(SLO, List.of(), b, false)));
        }
        // A positive rate held (p99 2 ms), a negative one missed (p99 50 ms).
        List<SweepOutcome.Point> points = new ArrayList<>();
        for (double h : holds) {
            long[] latencies = new long[2000];
            Arrays.fill(latencies, h > 0 ? 2_000 : 50_000);
            RunResult r = FormatTest.sample(Math.abs(h), latencies);
            points.add(new SweepOutcome.Point(r, SLO.violations(r)));
        }
        return new TuneResult.Entry(c, m, points, -1, -1);
    }

    private static List<TuneResult.Entry> ranked(TuneResult.Entry... entries) {
        List<TuneResult.Entry> list = new ArrayList<>(List.of(entries));
        list.sort(TuneResult.RANKING);
        return list;
    }

    @Test
    void finalistsRankByTheRateTheyHeldThenByTheirBreakdown() {
        TuneResult.Entry fast = entry("1", "final", new double[] {1140, 1140}, -1140, -912, 730);
        TuneResult.Entry steady = entry("4", "final", new double[] {900, 900}, 900);
        TuneResult.Entry base = entry(null, "final", new double[] {1000, 1060}, -1030, 824);
        TuneResult.Entry screened = entry("8", "screen", new double[] {2000});
        assertEquals(List.of(steady, base, fast, screened), ranked(fast, base, screened, steady));
        assertEquals(824, base.heldRate());
        assertEquals(618, base.at75Rate(), "75% of the rate held, not of the breakdown");
        assertEquals(773, entry(null, "final", new double[] {1030}, -1030, -824, -659).at75Rate(),
                "75% of the breakdown when nothing held");

        TuneResult.Entry unheld = entry("2", "final", new double[] {1200});
        TuneResult.Entry alsoUnheld = entry("4", "final", new double[] {1100});
        assertEquals(List.of(base, unheld, alsoUnheld), ranked(alsoUnheld, unheld, base),
                "a rate held ranks above none measured; without holds the breakdown decides");
    }

    @Test
    void theDefaultIsKeptUnlessTheWinnerHoldsMore() {
        TuneResult.Entry base = entry(null, "final", new double[] {1000, 1020}, -1010, 808);
        TuneResult.Entry sameHeld = entry("1", "final", new double[] {1200, 1200}, -1200, -960, 808);
        String note = TuneResult.keepTheDefault(sameHeld, base);
        assertTrue(note != null && note.contains("keep the default") && note.contains("808"), note);

        TuneResult.Entry holdsMore = entry("1", "final", new double[] {1000, 1000}, 1000);
        assertNull(TuneResult.keepTheDefault(holdsMore, base), "a lead of 192 held against a spread of 20");

        TuneResult.Entry withinSpread = entry("1", "final", new double[] {900, 1300}, 900);
        String noise = TuneResult.keepTheDefault(withinSpread, base);
        assertTrue(noise != null && noise.contains("within the spread"), noise);

        TuneResult.Entry notHeld = entry("1", "final", new double[] {1200, 1200});
        assertNull(TuneResult.keepTheDefault(notHeld, entry(null, "final", new double[] {1000, 1020})),
                "without holds the breakdown's lead decides, as before");
    }
}
