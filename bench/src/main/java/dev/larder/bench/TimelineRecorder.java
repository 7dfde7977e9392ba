package dev.larder.bench;

import org.HdrHistogram.IntCountsHistogram;

/**
 * One generator thread's latency second by second over one measured window: per second the answers, the answers
 * above a threshold (the SLO bound), the exact maximum and a small histogram for the percentiles, merged over the
 * threads into a {@link Timeline} at the end. Everything is allocated up front, so recording is a few array writes:
 * no lock, no allocation on the response path. Touched only by its thread's event loop until the window has ended.
 */
final class TimelineRecorder {

    static final long SECOND_NANOS = 1_000_000_000L;
    // 1 µs to one hour at 2 significant digits: percentiles to 1%, about 13 KB a second. Larger values are clamped
    // in the histogram; the per-second maximum stays exact.
    static final long HIGHEST_MICROS = 3_600_000_000L;

    private final long start;
    private final long thresholdMicros;
    private final long[] completed;
    private final long[] over;
    private final long[] max;
    private final IntCountsHistogram[] latency;

    /**
     * @param start           window start ({@link System#nanoTime()}); second i is {@code [start + i s, start + (i+1) s)}
     * @param seconds         seconds to keep (the window's length rounded up; 0 keeps nothing)
     * @param thresholdMicros answers above this corrected latency are counted per second
     */
    TimelineRecorder(long start, int seconds, long thresholdMicros) {
        this.start = start;
        this.thresholdMicros = thresholdMicros;
        this.completed = new long[seconds];
        this.over = new long[seconds];
        this.max = new long[seconds];
        this.latency = new IntCountsHistogram[seconds];
        for (int i = 0; i < seconds; i++) {
            latency[i] = newSecondHistogram();
        }
    }

    static IntCountsHistogram newSecondHistogram() {
        return new IntCountsHistogram(1, HIGHEST_MICROS, 2);
    }

    /** Seconds a window of {@code nanos} spans, the last one possibly partial. */
    static int secondsOf(long nanos) {
        return (int) Math.min(Integer.MAX_VALUE, (nanos + SECOND_NANOS - 1) / SECOND_NANOS);
    }

    /** An answer that arrived at {@code now} with corrected latency {@code micros}. */
    void record(long now, long micros) {
        long s = (now - start) / SECOND_NANOS;
        if (s < 0 || s >= completed.length) {
            return;
        }
        int i = (int) s;
        completed[i]++;
        if (micros > thresholdMicros) {
            over[i]++;
        }
        if (micros > max[i]) {
            max[i] = micros;
        }
        latency[i].recordValue(Math.min(Math.max(1, micros), HIGHEST_MICROS));
    }

    long thresholdMicros() {
        return thresholdMicros;
    }

    int seconds() {
        return completed.length;
    }

    long completed(int second) {
        return completed[second];
    }

    long over(int second) {
        return over[second];
    }

    long max(int second) {
        return max[second];
    }

    IntCountsHistogram latency(int second) {
        return latency[second];
    }
}
