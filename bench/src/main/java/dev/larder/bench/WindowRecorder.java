package dev.larder.bench;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * What one generator thread measures in one measured window {@code [start, end)} (a run's window, or one phase of
 * the tail benchmark): latency histograms, counters, status codes, rate samples and the per-second timeline.
 * Touched only by the thread's event loop, so recording needs no synchronisation; answers are attributed to the
 * window they arrive in.
 */
final class WindowRecorder {

    static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final long start;
    private final long end;
    private final Histogram corrected = GeneratorThread.newHistogram();
    private final Histogram uncorrected = GeneratorThread.newHistogram();
    private final Histogram lag = GeneratorThread.newHistogram();
    private final long[] statusCounts = new long[600];
    private final TimelineRecorder timeline;
    private double[] rateSamples = new double[64];
    private int rateSampleCount;
    private long lastSampleCount;
    private long lastSampleAt;
    private long completed;
    private long bytes;
    private long connectErrors;
    private long readErrors;
    private long timeouts;
    private long behindAtStart = -1;
    private long inFlightAtEnd = -1;
    private long behindAtEnd = -1;

    /**
     * @param end             the window's end, or {@code Long.MAX_VALUE / 2} for a window that lasts until the
     *                        request sources run dry (it keeps no timeline)
     * @param thresholdMicros the timeline's per-second threshold
     */
    WindowRecorder(long start, long end, long thresholdMicros) {
        this.start = start;
        this.end = end;
        this.lastSampleAt = start;
        boolean bounded = end < Long.MAX_VALUE / 4;
        this.timeline = new TimelineRecorder(start, bounded ? TimelineRecorder.secondsOf(end - start) : 0,
                thresholdMicros);
    }

    long start() {
        return start;
    }

    long end() {
        return end;
    }

    void response(long now, long due, long sentAt, int status) {
        completed++;
        long latency = Math.min(Math.max(0, (now - due) / 1000), corrected.getHighestTrackableValue());
        corrected.recordValue(latency);
        uncorrected.recordValue(Math.min(Math.max(0, (now - sentAt) / 1000), uncorrected.getHighestTrackableValue()));
        statusCounts[status < statusCounts.length ? status : 0]++;
        timeline.record(now, latency);
    }

    void lag(long lagNanos) {
        lag.recordValue(Math.min(Math.max(0, lagNanos / 1000), lag.getHighestTrackableValue()));
    }

    void bytes(int n) {
        bytes += n;
    }

    void connectError() {
        connectErrors++;
    }

    void readError() {
        readErrors++;
    }

    void timeout() {
        timeouts++;
    }

    /** One rate sample (requests/s since the previous one) if 100 ms have passed; called by the thread's ticker. */
    void sample(long now) {
        if (now >= start && now - lastSampleAt >= SAMPLE_NANOS && lastSampleAt < end) {
            if (rateSampleCount == rateSamples.length) {
                rateSamples = Arrays.copyOf(rateSamples, rateSampleCount * 2);
            }
            rateSamples[rateSampleCount++] = (completed - lastSampleCount) * 1e9 / (now - lastSampleAt);
            lastSampleCount = completed;
            lastSampleAt = now;
        }
    }

    /** The window opened with {@code behind} requests of the earlier schedule still unsent. */
    void opened(long behind) {
        behindAtStart = behind;
    }

    /** The window closed with {@code inFlight} requests unanswered and {@code behind} due but unsent. */
    void closed(long inFlight, long behind) {
        inFlightAtEnd = inFlight;
        behindAtEnd = behind;
    }

    boolean isClosed() {
        return inFlightAtEnd >= 0;
    }

    /**
     * Copies the results (on the loop, once the window has closed; the timeline is handed over as is, since nothing
     * records into a window after its end).
     */
    ThreadStats snapshot(long completedTotal) {
        return new ThreadStats(corrected.copy(), uncorrected.copy(), lag.copy(), completed, completedTotal, bytes,
                new SocketErrors(connectErrors, readErrors, 0, timeouts), statusCounts.clone(),
                Arrays.copyOf(rateSamples, rateSampleCount), Math.max(0, inFlightAtEnd), Math.max(0, behindAtEnd),
                Math.max(0, behindAtStart), timeline);
    }
}
