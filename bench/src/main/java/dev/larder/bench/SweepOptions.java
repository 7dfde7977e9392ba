package dev.larder.bench;

import java.time.Duration;

/**
 * How {@code bench sweep} steps the rate.
 *
 * @param from       first rate, requests/s (> 0)
 * @param to         last rate of the linear steps (>= from)
 * @param step       increment between steps (> 0)
 * @param refine     after the first failing rate, this many bisection runs between it and the last passing one
 * @param slo        what a rate must hold
 * @param keepGoing  keep stepping up to {@code to} after a failure (for the full curve in the report)
 * @param pause      idle time between runs, so queues drain before the next rate
 * @param initialWarmup warm-up of the first rate only, instead of the run's: a freshly started server (cold JIT,
 *                   empty caches) needs longer than the later rates, and a cold first step would otherwise end the
 *                   sweep at once
 */
public record SweepOptions(double from, double to, double step, int refine, Slo slo, boolean keepGoing,
                           Duration pause, Duration initialWarmup) {

    public SweepOptions {
        if (!(from > 0)) {
            throw new IllegalArgumentException("from: " + from + " (expected: > 0)");
        }
        if (!(to >= from)) {
            throw new IllegalArgumentException("to: " + to + " (expected: >= from " + from + ")");
        }
        if (!(step > 0)) {
            throw new IllegalArgumentException("step: " + step + " (expected: > 0)");
        }
        if (refine < 0 || refine > 20) {
            throw new IllegalArgumentException("refine: " + refine + " (expected: 0..20)");
        }
        if (slo == null) {
            throw new IllegalArgumentException("slo: required");
        }
        if (pause == null || pause.isNegative()) {
            throw new IllegalArgumentException("pause: " + pause + " (expected: >= 0)");
        }
        if (initialWarmup == null || initialWarmup.isNegative()) {
            throw new IllegalArgumentException("initial-warmup: " + initialWarmup + " (expected: >= 0)");
        }
    }

    /** Ten steps from {@code from} to {@code to}. */
    public static double defaultStep(double from, double to) {
        return to > from ? (to - from) / 9 : 1;
    }
}
