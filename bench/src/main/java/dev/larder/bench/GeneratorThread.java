package dev.larder.bench;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The state of one generator thread (one event loop and its connections): the request source of each phase of the
 * {@link Schedule} and a {@link WindowRecorder} for each measured phase, touched only by that loop, so recording
 * needs no synchronisation; they are merged when the run ends (as wrk2 does). An answer counts in the measured phase
 * it arrives in.
 */
final class GeneratorThread {

    /** wrk2's range: 1 µs to one day, 3 significant digits. */
    static Histogram newHistogram() {
        return new Histogram(1, 86_400_000_000L, 3);
    }

    private final EventLoop loop;
    private final RequestSource[] requests;
    private final long timeoutNanos;
    private final List<Connection> connections = new ArrayList<>();

    private Schedule schedule;
    // Per phase; null where the phase is not measured.
    private WindowRecorder[] windows;
    // The phase the loop's clock is in; time only moves forward on one thread, so it only moves forward too.
    private int current;
    private boolean running;
    private long completedTotal;
    private int idleConnections;
    // Failed connects before the schedule started (counted in the first measured window then).
    private long earlyConnectErrors;
    private ScheduledFuture<?> ticker;
    private Promise<Void> exhausted;

    /** @param requests the request source of each phase */
    GeneratorThread(EventLoop loop, RequestSource[] requests, long timeoutNanos) {
        this.loop = loop;
        this.requests = requests.clone();
        this.timeoutNanos = timeoutNanos;
    }

    EventLoop loop() {
        return loop;
    }

    RequestSource requests(int phase) {
        return requests[phase];
    }

    Schedule schedule() {
        return schedule;
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
     * Starts every connection's schedule (on the loop). {@code measured[i]} says whether phase i is a measured
     * window; the ticker samples the rate and enforces the request timeout; {@code exhausted} completes when a
     * bounded request source has run dry and every answer is in.
     */
    void start(Schedule schedule, boolean[] measured, long thresholdMicros, Promise<Void> exhausted) {
        this.schedule = schedule;
        this.windows = new WindowRecorder[schedule.phases()];
        this.exhausted = exhausted;
        this.running = true;
        for (int i = 0; i < windows.length; i++) {
            if (measured[i]) {
                WindowRecorder w = new WindowRecorder(schedule.start(i), schedule.end(i), thresholdMicros);
                windows[i] = w;
                loop.schedule(() -> w.opened(behindSchedule(w.start())),
                        Math.max(0, w.start() - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (w.end() < Long.MAX_VALUE / 4) {
                    loop.schedule(() -> close(w, w.end()), Math.max(0, w.end() - System.nanoTime()),
                            TimeUnit.NANOSECONDS);
                }
            }
        }
        for (WindowRecorder w : windows) {
            if (w != null) {
                for (; earlyConnectErrors > 0; earlyConnectErrors--) {
                    w.connectError();
                }
                break;
            }
        }
        ticker = loop.scheduleAtFixedRate(this::tick, WindowRecorder.SAMPLE_NANOS, WindowRecorder.SAMPLE_NANOS,
                TimeUnit.NANOSECONDS);
        for (Connection c : connections) {
            c.start();
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

    private void close(WindowRecorder w, long at) {
        long inFlight = 0;
        for (Connection c : connections) {
            if (c.inFlight()) {
                inFlight++;
            }
        }
        w.closed(inFlight, behindSchedule(at));
    }

    private long behindSchedule(long until) {
        long behind = 0;
        for (Connection c : connections) {
            behind += c.behindSchedule(until);
        }
        return behind;
    }

    private void tick() {
        long now = System.nanoTime();
        for (Connection c : connections) {
            if (c.inFlight() && now - c.sentAt() > timeoutNanos) {
                c.timeout();
            }
        }
        WindowRecorder w = windowAt(now);
        if (w != null) {
            w.sample(now);
        }
    }

    // The measured window `now` falls in, or null.
    private WindowRecorder windowAt(long now) {
        if (schedule == null || now < schedule.start(0)) {
            return null;
        }
        while (current + 1 < windows.length && now >= schedule.start(current + 1)) {
            current++;
        }
        return now < schedule.end(current) ? windows[current] : null;
    }

    // Socket errors count in the window they happen in, else in the last one before (or the first one after), so
    // those of a warm-up are not lost.
    private WindowRecorder errorWindow() {
        WindowRecorder w = windowAt(System.nanoTime());
        if (w != null || windows == null) {
            return w;
        }
        WindowRecorder before = null;
        WindowRecorder after = null;
        for (int i = 0; i < windows.length; i++) {
            if (windows[i] == null) {
                continue;
            }
            if (i <= current) {
                before = windows[i];
            } else if (after == null) {
                after = windows[i];
            }
        }
        return before != null ? before : after;
    }

    void responseReceived(long now, long due, long sentAt, int status) {
        completedTotal++;
        WindowRecorder w = windowAt(now);
        if (w != null) {
            w.response(now, due, sentAt, status);
        }
    }

    void recordLag(long now, long lagNanos) {
        WindowRecorder w = windowAt(now);
        if (w != null) {
            w.lag(lagNanos);
        }
    }

    void bytesRead(long now, int n) {
        WindowRecorder w = windowAt(now);
        if (w != null) {
            w.bytes(n);
        }
    }

    void connectError() {
        if (windows == null) {
            earlyConnectErrors++;
            return;
        }
        WindowRecorder w = errorWindow();
        if (w != null) {
            w.connectError();
        }
    }

    void readError() {
        WindowRecorder w = errorWindow();
        if (w != null) {
            w.readError();
        }
    }

    void timeoutError() {
        WindowRecorder w = errorWindow();
        if (w != null) {
            w.timeout();
        }
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

    /**
     * Copies this thread's results, one per measured phase in order (on the loop, after {@link #stop()}); a window
     * still open (a run that ended when its sources ran dry) is closed at {@code until}.
     */
    List<ThreadStats> snapshot(long until) {
        List<ThreadStats> out = new ArrayList<>();
        for (WindowRecorder w : windows) {
            if (w == null) {
                continue;
            }
            if (!w.isClosed()) {
                close(w, until);
            }
            out.add(w.snapshot(completedTotal));
        }
        return out;
    }
}
