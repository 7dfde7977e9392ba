package dev.larder.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A service-level objective a rate must hold in a sweep: corrected latency bounds at given percentiles, at least 99%
 * of the target rate achieved, and fewer than 0.1% failed requests ({@link RunResult#failed()}).
 *
 * @param bounds            percentile (0..100) → highest allowed corrected latency in µs, ascending
 * @param minAchievedRatio  achieved / target below this fails
 * @param maxErrorRatio     failed / attempted at or above this fails
 */
public record Slo(Map<Double, Long> bounds, double minAchievedRatio, double maxErrorRatio) {

    /** What the sweep and the tail benchmark hold a rate to unless told otherwise. */
    public static final String DEFAULT = "p99=10ms";

    public Slo {
        bounds = Collections.unmodifiableMap(new TreeMap<>(bounds));
        for (var e : bounds.entrySet()) {
            if (e.getKey() <= 0 || e.getKey() > 100) {
                throw new IllegalArgumentException("slo: p" + e.getKey() + " (expected: 0 < percentile <= 100)");
            }
            if (e.getValue() <= 0) {
                throw new IllegalArgumentException("slo: p" + fmt(e.getKey()) + "=" + e.getValue()
                        + "us (expected: > 0)");
            }
        }
    }

    /** {@code p99=10ms} and the fixed rate and error bounds. */
    public static Slo parse(String text) {
        Map<Double, Long> bounds = new TreeMap<>();
        for (String part : text.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq < 0 || !(p.startsWith("p") || p.startsWith("P"))) {
                throw new IllegalArgumentException("slo: '" + p + "' (expected: pNN=LATENCY, e.g. p99=10ms)");
            }
            double percentile;
            try {
                percentile = Double.parseDouble(p.substring(1, eq));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("slo: '" + p + "' (expected: pNN=LATENCY, e.g. p99.9=50ms)");
            }
            bounds.put(percentile, parseMicros(p.substring(eq + 1)));
        }
        if (bounds.isEmpty()) {
            throw new IllegalArgumentException("slo: '" + text + "' (expected: at least one pNN=LATENCY)");
        }
        return new Slo(bounds, RunResult.ACHIEVED_THRESHOLD, 0.001);
    }

    /** {@code 500us}, {@code 10ms}, {@code 1.5s} → µs. */
    static long parseMicros(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        double scale;
        String number;
        if (t.endsWith("us")) {
            scale = 1;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("ms")) {
            scale = 1_000;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            scale = 1_000_000;
            number = t.substring(0, t.length() - 1);
        } else {
            throw new IllegalArgumentException("slo: '" + text + "' (expected a latency with a unit: 500us, 10ms, 1s)");
        }
        try {
            return Math.round(Double.parseDouble(number.trim()) * scale);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("slo: '" + text + "' (expected a latency with a unit: 500us, 10ms)");
        }
    }

    /**
     * The latency bound of the highest percentile (10 ms for {@code p99=10ms}): what per-second timelines count
     * answers above, since the tail bound is the one a stall breaks first.
     */
    public long thresholdMicros() {
        return new TreeMap<>(bounds).lastEntry().getValue();
    }

    /** The reasons {@code r} misses this objective; empty when it holds. */
    public List<String> violations(RunResult r) {
        List<String> out = new ArrayList<>();
        if (r.completed() == 0) {
            out.add("no responses");
            return out;
        }
        for (var e : bounds.entrySet()) {
            long v = r.percentile(e.getKey());
            if (v > e.getValue()) {
                out.add("p" + fmt(e.getKey()) + " " + Units.timeMicros(v) + " > " + Units.timeMicros(e.getValue()));
            }
        }
        if (!r.closedLoop() && r.achievedRatio() < minAchievedRatio) {
            out.add(String.format(Locale.ROOT, "achieved %.2f%% < %.0f%%", 100 * r.achievedRatio(),
                    100 * minAchievedRatio));
        }
        if (r.errorRatio() >= maxErrorRatio) {
            out.add(String.format(Locale.ROOT, "errors %.2f%% >= %.1f%%", 100 * r.errorRatio(), 100 * maxErrorRatio));
        }
        return out;
    }

    /** {@code p99 <= 10.00ms, achieved >= 99%, errors < 0.1%}. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (var e : bounds.entrySet()) {
            sb.append('p').append(fmt(e.getKey())).append(" <= ").append(Units.timeMicros(e.getValue())).append(", ");
        }
        return sb + String.format(Locale.ROOT, "achieved >= %.0f%%, errors < %s%%", 100 * minAchievedRatio,
                fmt(100 * maxErrorRatio));
    }

    static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
