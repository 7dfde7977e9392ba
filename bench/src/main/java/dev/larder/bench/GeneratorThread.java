package dev.larder.bench;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The state of one generator thread (one event loop and its connections): its own histograms and counters, touched
 * only by that loop, so recording needs no synchronisation; they are merged when the run ends (as wrk2 does).
 * Responses are counted when they arrive inside the measured window {@code [measureStart, measureEnd)}.
 */
final class GeneratorThread {

    /** wrk2's range: 1 µs to one day, 3 significant digits. */
    static Histogram newHistogram() {
        return new Histogram(1, 86_400_000_000L, 3);
    }

    private static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final EventLoop loop;
    private final RequestSource requests;
    private final long timeoutNanos;
    private final List<Connection> connections = new ArrayList<>();
    private final Histogram corrected = newHistogram();
    private final Histogram uncorrected = newHistogram();
    private final Histogram lag = newHistogram();
    private final long[] statusCounts = new long[600];
    private double[] rateSamples = new double[64];
    private int rateSampleCount;

    private long measureStart = Long.MAX_VALUE;
    private long measureEnd = Long.MAX_VALUE;
    private boolean running;
    private long completed;
    private long completedTotal;
    private long bytes;
    private long connectErrors;
    private long readErrors;
    private long timeouts;
    private int idleConnections;
    private long lastSampleCount;
    private long lastSampleAt;
    private long behindAtStart = -1;
    private ScheduledFuture<?> ticker;
    private Promise<Void> exhausted;

    GeneratorThread(EventLoop loop, RequestSource requests, long timeoutNanos) {
        this.loop = loop;
        this.requests = requests;
        this.timeoutNanos = timeoutNanos;
    }

    EventLoop loop() {
        return loop;
    }

    RequestSource requests() {
        return requests;
    }

    boolean running() {
        return running;
    }

    void add(Connection c) {
        connections.add(c);
    }

    List<Connection> connections() {
        return connections;
    }

    /**
     * Starts every connection's schedule (on the loop). {@code firstDue[i]} is connection i's first due time; the
     * ticker samples the rate and enforces the request timeout; {@code exhausted} completes when a bounded request
     * source has run dry and every answer is in.
     */
    void start(long[] firstDue, long measureStart, long measureEnd, Promise<Void> exhausted) {
        this.measureStart = measureStart;
        this.measureEnd = measureEnd;
        this.exhausted = exhausted;
        this.running = true;
        this.lastSampleAt = measureStart;
        ticker = loop.scheduleAtFixedRate(this::tick, SAMPLE_NANOS, SAMPLE_NANOS, TimeUnit.NANOSECONDS);
        if (measureStart < Long.MAX_VALUE / 4) {
            loop.schedule(this::windowOpens, Math.max(0, measureStart - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        for (int i = 0; i < connections.size(); i++) {
            connections.get(i).start(firstDue[i]);
        }
    }

    /** Stops sending and closes every connection (on the loop). */
    void stop() {
        running = false;
        if (ticker != null) {
            ticker.cancel(false);
        }
        for (Connection c : connections) {
            c.close();
        }
    }

    // How far behind schedule the connections are when the window opens: warm-up backlog spilling into it.
    private void windowOpens() {
        long behind = 0;
        for (Connection c : connections) {
            behind += c.behindSchedule(measureStart);
        }
        behindAtStart = behind;
    }

    private void tick() {
        long now = System.nanoTime();
        for (Connection c : connections) {
            if (c.inFlight() && now - c.sentAt() > timeoutNanos) {
                c.timeout();
            }
        }
        if (now >= measureStart && now - lastSampleAt >= SAMPLE_NANOS && lastSampleAt < measureEnd) {
            if (rateSampleCount == rateSamples.length) {
                rateSamples = Arrays.copyOf(rateSamples, rateSampleCount * 2);
            }
            rateSamples[rateSampleCount++] = (completed - lastSampleCount) * 1e9 / (now - lastSampleAt);
            lastSampleCount = completed;
            lastSampleAt = now;
        }
    }

    private boolean inWindow(long now) {
        return now >= measureStart && now < measureEnd;
    }

    void responseReceived(long now, long due, long sentAt, int status) {
        completedTotal++;
        if (!inWindow(now)) {
            return;
        }
        completed++;
        corrected.recordValue(Math.min(Math.max(0, (now - due) / 1000), corrected.getHighestTrackableValue()));
        uncorrected.recordValue(Math.min(Math.max(0, (now - sentAt) / 1000), uncorrected.getHighestTrackableValue()));
        statusCounts[status < statusCounts.length ? status : 0]++;
    }

    void recordLag(long now, long lagNanos) {
        if (inWindow(now)) {
            lag.recordValue(Math.min(Math.max(0, lagNanos / 1000), lag.getHighestTrackableValue()));
        }
    }

    void bytesRead(long now, int n) {
        if (inWindow(now)) {
            bytes += n;
        }
    }

    void connectError() {
        connectErrors++;
    }

    void readError() {
        readErrors++;
    }

    void timeoutError() {
        timeouts++;
    }

    /** Responses received so far, warm-up included (for the prefill's progress watchdog). */
    long completedTotal() {
        return completedTotal;
    }

    void connectionIdle() {
        idleConnections++;
        if (idleConnections == connections.size() && exhausted != null) {
            exhausted.trySuccess(null);
        }
    }

    /** Copies this thread's results (on the loop, after {@link #stop()}). */
    ThreadStats snapshot(long until) {
        long inFlight = 0;
        long behind = 0;
        for (Connection c : connections) {
            if (c.inFlight()) {
                inFlight++;
            }
            behind += c.behindSchedule(until);
        }
        return new ThreadStats(corrected.copy(), uncorrected.copy(), lag.copy(), completed, completedTotal, bytes,
                new SocketErrors(connectErrors, readErrors, 0, timeouts), statusCounts.clone(),
                Arrays.copyOf(rateSamples, rateSampleCount), inFlight, behind, Math.max(0, behindAtStart));
    }
}
