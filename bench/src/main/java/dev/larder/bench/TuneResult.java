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
     * @param p99At75Micros  p99 at 75% of its breakdown rate (finalists only; -1 otherwise)
     * @param cpuMicrosPerRequest server CPU per request at that rate (finalists only; -1 otherwise)
     */
    record Entry(TuneSpace.Candidate candidate, List<Measurement> measurements, long p99At75Micros,
                 double cpuMicrosPerRequest) {

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
}
