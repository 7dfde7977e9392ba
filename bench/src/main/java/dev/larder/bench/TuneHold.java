package dev.larder.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleFunction;

/**
 * {@code larder tune}'s hold round: whether a finalist holds the rate the ranked table shows for longer than a sweep
 * window, and if not, the highest of a few lower rates it does hold. A 15-minute search found the default's
 * breakdown at 103.2k req/s in 4 s windows, yet at 75% of it the p99 was 26.1 ms against a 10 ms SLO
 * (docs/tuning.md): a short window's breakdown overstates what a server holds.
 */
final class TuneHold {

    /** Holds per finalist: the breakdown and two steps down, the most a 15-minute budget keeps for three finalists. */
    static final int MAX_HOLDS = 3;
    /** Each miss tries 80% of the rate before: three holds reach down to 64% of the breakdown. */
    static final double STEP = 0.8;

    private TuneHold() {
    }

    /**
     * Holds {@code from}, then {@link #STEP} times the rate before after each miss, until a rate holds, after
     * {@link #MAX_HOLDS} holds, or when {@code another} says there is no time for the next. A miss while the
     * generator lagged or the host took CPU time ({@link SweepOutcome.Point#missedWhileDisturbed}) is held once more
     * at the same rate (time permitting), and only the second counts.
     *
     * @param hold       one hold at a rate; judged by {@code slo} as a sweep point is
     * @param beforeHold called before every hold: waits until the server has paid off the one before, as
     *                   {@link SustainableSearch} does, so a step down does not inherit the debt of the miss above it
     * @return every hold, in the order run
     */
    static List<SweepOutcome.Point> stepDown(double from, Slo slo, DoubleFunction<RunResult> hold,
                                             Runnable beforeHold, BooleanSupplier another) {
        List<SweepOutcome.Point> holds = new ArrayList<>();
        double rate = Math.round(from);
        while (rate >= 1 && holds.size() < MAX_HOLDS && (holds.isEmpty() || another.getAsBoolean())) {
            SweepOutcome.Point p = holdOnce(rate, slo, hold, beforeHold);
            if (p.missedWhileDisturbed() && another.getAsBoolean()) {
                // As a sweep does: a stall of the tune process itself (or of the host) must not set the finalist's
                // held rate.
                p = holdOnce(rate, slo, hold, beforeHold);
            }
            holds.add(p);
            if (p.held()) {
                break;
            }
            rate = Math.round(rate * STEP);
        }
        return holds;
    }

    private static SweepOutcome.Point holdOnce(double rate, Slo slo, DoubleFunction<RunResult> hold,
                                               Runnable beforeHold) {
        beforeHold.run();
        return SweepOutcome.Point.judged(hold.apply(rate), slo);
    }

    /** The rate that held; 0 when none did; -1 when nothing was held (no hold round, or no time for it). */
    static double heldRate(List<SweepOutcome.Point> holds) {
        if (holds.isEmpty()) {
            return -1;
        }
        return holds.stream().filter(SweepOutcome.Point::held).mapToDouble(p -> p.result().targetRate()).max()
                .orElse(0);
    }

    /** The lowest rate tried, for "below X" when none held. */
    static double lowestTried(List<SweepOutcome.Point> holds) {
        return holds.stream().mapToDouble(p -> p.result().targetRate()).min().orElse(0);
    }
}
