package dev.larder.bench;

import java.util.List;

/**
 * A sweep of one target: every rate run, in the order run, and the breakdown point.
 *
 * @param slo        the objective each rate was held to
 * @param points     each rate with why it missed the objective (empty = held)
 * @param breakdown  the highest rate that held the objective with every lower rate tried also holding it, or
 *                   {@code null} if even the first rate failed
 * @param reachedTop true if no tried rate failed (the breakdown point is above {@code --to})
 */
public record SweepOutcome(Slo slo, List<Point> points, Double breakdown, boolean reachedTop) {

    /**
     * One rate of a sweep.
     *
     * @param result     the run
     * @param violations why it missed the objective; empty when it held
     */
    public record Point(RunResult result, List<String> violations) {
        public Point {
            violations = List.copyOf(violations);
        }

        public boolean held() {
            return violations.isEmpty();
        }

        /**
         * Missed while the generator itself fell behind its schedule: the miss may be the client's (a stall of the
         * load generator's own process), not the server's, so the rate is worth measuring again.
         */
        public boolean missedWhileGeneratorLagged() {
            return !held() && result.warningKinds().contains(Warning.Kind.GENERATOR_LAG);
        }
    }

    public SweepOutcome {
        points = List.copyOf(points);
    }

    /** The points sorted by target rate (for tables and plots). */
    public List<Point> byRate() {
        return points.stream().sorted(java.util.Comparator.comparingDouble(p -> p.result().targetRate())).toList();
    }

    /** One sentence: "breakdown point: 12000 req/s" and its qualifiers. */
    public String verdict() {
        if (breakdown == null) {
            return "breakdown point: below " + Units.rate(points.isEmpty() ? 0 : byRate().get(0).result().targetRate())
                    + " req/s (the lowest rate tried already misses the SLO)";
        }
        if (reachedTop) {
            return "breakdown point: above " + Units.rate(breakdown) + " req/s (every rate tried holds the SLO)";
        }
        return "breakdown point: " + Units.rate(breakdown) + " req/s (highest rate holding the SLO)";
    }
}
