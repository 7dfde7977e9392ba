package dev.larder.bench;

import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleFunction;

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
        TailSession.Step write = new TailSession.Step("write", TailPhase.PUT, Math.round(tail.load() * putCapacity),
                tail.phaseDuration(), true);
        out.printf(Locale.ROOT, "  sustainable %s: searching on the %d keys written so far%n", op, cursor.get());
        return search(op, capacity, tail, rate -> {
            beforeTrial.run();
            TailSession.Step hold = new TailSession.Step("hold " + op, op, rate, tail.hold(), true);
            return session.run(url, label, encoder, cursor, List.of(write, hold)).get(1);
        }, out);
    }

    /**
     * The bisection itself, over {@code trial} (a write phase and a hold at the given rate; returns the hold). A trial
     * that misses while the generator lagged or the host took CPU time
     * ({@link SweepOutcome.Point#missedWhileDisturbed}) is run once more at the same rate and only the second counts:
     * one bisection step decides half of what is left, so a stall of the generator's own process would otherwise set
     * the answer (session 43: the search gave nginx a GET rate of 0.16x its saturated one, missing at 14.5k/s where
     * 12.1k had held at 0.13 ms).
     */
    static TailResult.SustainableResult search(TailPhase op, double capacity, TailOptions tail,
                                               DoubleFunction<RunResult> trial, PrintStream out) {
        double lo = 0;
        double hi = capacity;
        List<SweepOutcome.Point> trials = new ArrayList<>();
        List<SweepOutcome.Point> measuredAgain = new ArrayList<>();
        long bound = tail.slo().thresholdMicros();
        for (int i = 0; i < tail.bisectSteps(); i++) {
            double rate = Math.round((lo + hi) / 2);
            SweepOutcome.Point p = SweepOutcome.Point.judged(trial.apply(rate), tail.slo());
            if (p.missedWhileDisturbed()) {
                print(out, op, rate, p, bound, "measured again: missed while " + p.disturbance());
                measuredAgain.add(p);
                p = SweepOutcome.Point.judged(trial.apply(rate), tail.slo());
            }
            trials.add(p);
            print(out, op, rate, p, bound, p.held() ? "held" : "MISS (" + String.join("; ", p.violations()) + ")");
            if (p.held()) {
                lo = rate;
            } else {
                hi = rate;
            }
        }
        return new TailResult.SustainableResult(op, capacity, lo, capacity / Math.pow(2, tail.bisectSteps()), trials,
                measuredAgain);
    }

    /**
     * One trial's line, then the seconds of its hold above the SLO's bound with the worst of them, and its warnings:
     * a 60 s hold is judged by its p99, and one bad second can decide it.
     */
    private static void print(PrintStream out, TailPhase op, double rate, SweepOutcome.Point p, long boundMicros,
                              String verdict) {
        RunResult r = p.result();
        out.printf(Locale.ROOT, "  sustainable %s: %s req/s after a write phase: p99 %s  %s%n", op, Units.rate(rate),
                Units.timeMicros(r.percentile(99)), verdict);
        Timeline t = r.timeline();
        if (!t.seconds().isEmpty()) {
            // A 60 s hold is judged by its p99: the worst seconds say where it came from.
            List<String> worst = t.worstSecondsText(Timeline.WORST_SECONDS, boundMicros);
            out.printf(Locale.ROOT, "            %d of %d s above %s%s%n", t.secondsAbove(boundMicros),
                    t.seconds().size(), Units.timeMicros(boundMicros),
                    worst.isEmpty() ? "" : "; worst: " + String.join(", ", worst));
        }
        Bench.printWarnings(out, r);
    }
}
