package dev.larder.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a {@code larder tune} search found: every candidate measured, ranked.
 *
 * @param options   what was asked
 * @param started   when the search began
 * @param elapsed   how long it took
 * @param window    the measured window of the screening round (later rounds use twice that)
 * @param capacity  the default's closed-loop throughput, from which the rates tried were chosen
 * @param ranked    every candidate, best first
 * @param notes     what the search left out or decided, one line each (budget cuts, noise)
 */
record TuneResult(TuneOptions options, Instant started, Duration elapsed, Duration window, double capacity,
                  List<Entry> ranked, List<String> notes) {

    /** One evaluation of a candidate: one server, one sweep to its breakdown point. */
    record Measurement(String stage, double breakdown, SweepOutcome sweep) {
    }

    /**
     * A candidate and all its measurements.
     *
     * @param holds          the hold round's holds, in the order run (finalists only; empty otherwise)
     * @param p99At75Micros  p99 at 75% of its held rate, or of its breakdown rate when it held none (finalists
     *                       only; -1 otherwise)
     * @param cpuMicrosPerRequest server CPU per request at that rate (finalists only; -1 otherwise)
     */
    record Entry(TuneSpace.Candidate candidate, List<Measurement> measurements, List<SweepOutcome.Point> holds,
                 long p99At75Micros, double cpuMicrosPerRequest) {

        Entry {
            holds = List.copyOf(holds);
        }

        /** The highest rate it held for the hold duration; 0 when none of its holds did; -1 when not held. */
        double heldRate() {
            return TuneHold.heldRate(holds);
        }

        /** The rate its run at 75% went at: 75% of what it held, or of its breakdown when it held nothing. */
        double at75Rate() {
            return Math.round(0.75 * (heldRate() > 0 ? heldRate() : breakdown()));
        }

        /** The stage of its last measurement: how far it got. */
        String stage() {
            return measurements.get(measurements.size() - 1).stage();
        }

        /** The measurements of its last stage: the finalists' repeats, or the one of an earlier round. */
        List<Double> lastStage() {
            String stage = stage();
            List<Double> out = new ArrayList<>();
            for (Measurement m : measurements) {
                if (m.stage().equals(stage)) {
                    out.add(m.breakdown());
                }
            }
            return out;
        }

        /** Median breakdown rate of its last stage. */
        double breakdown() {
            List<Double> v = new ArrayList<>(lastStage());
            v.sort(Comparator.naturalOrder());
            int n = v.size();
            return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
        }

        /** Highest minus lowest breakdown rate of its last stage (0 with one measurement). */
        double spread() {
            List<Double> v = lastStage();
            return v.stream().mapToDouble(Double::doubleValue).max().orElse(0)
                    - v.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        }

        /** The sweep of its last measurement, for the curves. */
        SweepOutcome lastSweep() {
            return measurements.get(measurements.size() - 1).sweep();
        }
    }

    /**
     * Why the winner should not replace the default, or {@code null}: its lead (in held rate when both were held,
     * else in median breakdown) is none, or within the spread of either's repeated measurements.
     */
    static String keepTheDefault(Entry best, Entry base) {
        if (best == base || !best.stage().equals(base.stage())) {
            return null;
        }
        boolean held = best.heldRate() >= 0 && base.heldRate() >= 0;
        double lead = held ? best.heldRate() - base.heldRate() : best.breakdown() - base.breakdown();
        double spread = Math.max(best.spread(), base.spread());
        if (held && lead <= 0) {
            return "noise: the winner held " + heldText(best) + " req/s against the default's " + heldText(base)
                    + ", no more: keep the default";
        }
        if (lead <= spread) {
            return "noise: the winner beats the default by " + Units.rate(lead) + " req/s" + (held ? " held" : "")
                    + ", within the spread of repeated measurements (" + Units.rate(spread) + "): keep the default";
        }
        return null;
    }

    /** {@code 80.2k}, {@code below 65.9k} when none of its holds held, empty when it was not held. */
    static String heldText(Entry e) {
        double held = e.heldRate();
        return held < 0 ? "" : held > 0 ? Units.rate(held) : "below " + Units.rate(TuneHold.lowestTried(e.holds()));
    }

    /** The best candidate. */
    Entry winner() {
        return ranked.get(0);
    }

    /** The default's entry. */
    Entry defaults() {
        return ranked.stream().filter(e -> e.candidate().isDefault()).findFirst().orElseThrow();
    }

    /** Every stage in the order the search ran them, with how many candidates it measured. */
    static final List<String> STAGES = List.of("screen", "combine", "final");

    /**
     * Best first: the furthest round first (its candidates were measured most); within it, a higher held rate, what
     * a server was seen to hold for the hold duration rather than for a sweep window; then the median breakdown.
     */
    static final Comparator<Entry> RANKING = Comparator.comparingInt((Entry e) -> STAGES.indexOf(e.stage()))
            .thenComparingDouble(Entry::heldRate).thenComparingDouble(Entry::breakdown).reversed();
}
