package dev.larder.bench;

import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code bench tail --sustainable}: the highest rate of an op that holds the SLO for {@code --hold} right after a
 * write phase, by bisection between 0 and the op's saturated capacity. Each trial is its own session: a write phase
 * (PUT at {@code --load} of the PUT capacity for {@code --phase-duration}), then the op at the trial rate; only that
 * hold is judged.
 *
 * <p>Before each trial the search waits for the server's compactions to finish ({@code beforeTrial}): without it a
 * trial inherited the debt of the one before. On a 2-core machine, after a PUT trial that failed at 86k/s, the trials
 * at 72k and 64k failed with p99s of 1.5 s and 7 s, where 57k had held at 4.4 ms; the sync mode, whose trials happened
 * to go up (48k, 72k, 84k held), reached 84k (docs/performance.md, session 8). A bisection whose answer depends on
 * the order of its trials is not a breakdown point.
 */
final class SustainableSearch {

    private SustainableSearch() {
    }

    static TailResult.SustainableResult find(TailSession session, TailOptions tail, URI url, String label,
                                             RequestEncoder encoder, AtomicLong cursor, TailPhase op, double capacity,
                                             double putCapacity, Runnable beforeTrial, PrintStream out) {
        double lo = 0;
        double hi = capacity;
        List<SweepOutcome.Point> trials = new ArrayList<>();
        TailSession.Step write = new TailSession.Step("write", TailPhase.PUT, Math.round(tail.load() * putCapacity),
                tail.phaseDuration(), true);
        out.printf(Locale.ROOT, "  sustainable %s: searching on the %d keys written so far%n", op, cursor.get());
        for (int i = 0; i < tail.bisectSteps(); i++) {
            double rate = Math.round((lo + hi) / 2);
            TailSession.Step hold = new TailSession.Step("hold " + op, op, rate, tail.hold(), true);
            beforeTrial.run();
            RunResult r = session.run(url, label, encoder, cursor, List.of(write, hold)).get(1);
            SweepOutcome.Point p = new SweepOutcome.Point(r, tail.slo().violations(r));
            trials.add(p);
            out.printf(Locale.ROOT, "  sustainable %s: %s req/s after a write phase: p99 %s  %s%n", op,
                    Units.rate(rate), Units.timeMicros(r.percentile(99)),
                    p.held() ? "held" : "MISS (" + String.join("; ", p.violations()) + ")");
            if (p.held()) {
                lo = rate;
            } else {
                hi = rate;
            }
        }
        return new TailResult.SustainableResult(op, capacity, lo, capacity / Math.pow(2, tail.bisectSteps()), trials);
    }
}
