package dev.larder.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Everything one run at one rate measured, merged over the generator threads. Latencies are in microseconds (as
 * wrk2 records them). The histograms belong to this result: read them, do not record into them.
 *
 * @param target        label of the server measured
 * @param url           its data URL
 * @param workload      {@link Workload#describe()}
 * @param targetRate    requests/s asked for; 0 for a closed-loop run
 * @param connections   connections used
 * @param threads       generator threads used
 * @param seconds       length of the measured window
 * @param corrected     latency from the time each request was due (coordinated-omission corrected)
 * @param uncorrected   latency from the time each request was actually sent
 * @param lag           generator lag: how late requests went out that could have gone out
 * @param completed     responses received in the window
 * @param bytes         bytes received in the window
 * @param errors        socket errors over the whole run
 * @param statusCounts  responses per status code in the window
 * @param rateSamples   per-thread requests/s, one sample per thread per 100 ms
 * @param inFlightAtEnd requests unanswered when the window closed
 * @param behindAtEnd   requests due in the window that never went out (every connection was busy or down)
 * @param behindAtStart requests due during the warm-up still unsent when the window opened (their backlog then
 *                      lands in the window)
 * @param warnings      failed honesty checks
 * @param profiles      flame graphs fetched during the window
 * @param timeline      the window second by second (empty for the prefill)
 * @param hostSteal     share (0-1) of the machine's CPU time its host took during the window ({@link HostSteal});
 *                      NaN unknown
 * @param serverCores   the server's CPU during the window, in cores ({@link ProcessCpuTime}); NaN unknown
 * @param serverBackgroundCores the part of {@code serverCores} its threads at a lower priority than their process used
 *                      (Larder's flushes and compactions at nice 19); NaN unknown
 * @param generatorCores this generator's own CPU during the window, in cores; NaN unknown
 * @param generatorCpus  how many CPUs this generator may run on; 0 unknown
 */
public record RunResult(String target, URI url, String workload, double targetRate, int connections, int threads,
                        double seconds, Histogram corrected, Histogram uncorrected, Histogram lag, long completed,
                        long bytes, SocketErrors errors, SortedMap<Integer, Long> statusCounts, double[] rateSamples,
                        long inFlightAtEnd, long behindAtEnd, long behindAtStart, List<Warning> warnings,
                        List<ProfileResult> profiles, Timeline timeline, double hostSteal, double serverCores,
                        double serverBackgroundCores, double generatorCores, int generatorCpus) {

    /** Fraction of the target rate below which a run is reported as not achieved. */
    public static final double ACHIEVED_THRESHOLD = 0.99;

    public RunResult {
        statusCounts = Collections.unmodifiableSortedMap(new TreeMap<>(statusCounts));
        warnings = List.copyOf(warnings);
        profiles = List.copyOf(profiles);
        timeline = timeline == null ? Timeline.EMPTY : timeline;
    }

    /** A result with neither the host's steal nor the server's CPU known (tests, and results made by hand). */
    public RunResult(String target, URI url, String workload, double targetRate, int connections, int threads,
                     double seconds, Histogram corrected, Histogram uncorrected, Histogram lag, long completed,
                     long bytes, SocketErrors errors, SortedMap<Integer, Long> statusCounts, double[] rateSamples,
                     long inFlightAtEnd, long behindAtEnd, long behindAtStart, List<Warning> warnings,
                     List<ProfileResult> profiles, Timeline timeline) {
        this(target, url, workload, targetRate, connections, threads, seconds, corrected, uncorrected, lag, completed,
                bytes, errors, statusCounts, rateSamples, inFlightAtEnd, behindAtEnd, behindAtStart, warnings,
                profiles, timeline, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0);
    }

    /** Merges per-thread statistics of one window and runs the honesty checks. */
    static RunResult merge(String target, URI url, String workload, double rate, int connections,
                           LoadGenerator.Window window, List<ProfileResult> profiles) {
        Histogram corrected = GeneratorThread.newHistogram();
        Histogram uncorrected = GeneratorThread.newHistogram();
        Histogram lag = GeneratorThread.newHistogram();
        long completed = 0;
        long bytes = 0;
        long inFlight = 0;
        long behind = 0;
        long behindAtStart = 0;
        SocketErrors errors = SocketErrors.NONE;
        long[] status = new long[600];
        int samples = 0;
        for (ThreadStats t : window.threads()) {
            corrected.add(t.corrected());
            uncorrected.add(t.uncorrected());
            lag.add(t.lag());
            completed += t.completed();
            bytes += t.bytes();
            inFlight += t.inFlight();
            behind += t.behind();
            behindAtStart += t.behindAtStart();
            errors = errors.plus(t.errors());
            for (int i = 0; i < status.length; i++) {
                status[i] += t.statusCounts()[i];
            }
            samples += t.rateSamples().length;
        }
        double[] rateSamples = new double[samples];
        int k = 0;
        for (ThreadStats t : window.threads()) {
            System.arraycopy(t.rateSamples(), 0, rateSamples, k, t.rateSamples().length);
            k += t.rateSamples().length;
        }
        SortedMap<Integer, Long> statusCounts = new TreeMap<>();
        for (int i = 0; i < status.length; i++) {
            if (status[i] > 0) {
                statusCounts.put(i, status[i]);
            }
        }
        List<TimelineRecorder> timelines = new ArrayList<>();
        for (ThreadStats t : window.threads()) {
            timelines.add(t.timeline());
        }
        RunResult draft = new RunResult(target, url, workload, rate, connections, window.threads().size(),
                window.seconds(), corrected, uncorrected, lag, completed, bytes, errors, statusCounts, rateSamples,
                inFlight, behind, behindAtStart, List.of(), profiles,
                Timeline.merge(timelines).withMachine(window.machineSeconds()), window.hostSteal(),
                window.serverCores(), window.serverBackgroundCores(), window.generatorCores(), window.generatorCpus());
        return draft.withWarnings(Honesty.check(draft, window.serverAllowedCpus()));
    }

    RunResult withWarnings(List<Warning> newWarnings) {
        return new RunResult(target, url, workload, targetRate, connections, threads, seconds, corrected,
                uncorrected, lag, completed, bytes, errors, statusCounts, rateSamples, inFlightAtEnd, behindAtEnd,
                behindAtStart, newWarnings, profiles, timeline, hostSteal, serverCores, serverBackgroundCores,
                generatorCores, generatorCpus);
    }

    RunResult withProfiles(List<ProfileResult> newProfiles) {
        return new RunResult(target, url, workload, targetRate, connections, threads, seconds, corrected,
                uncorrected, lag, completed, bytes, errors, statusCounts, rateSamples, inFlightAtEnd, behindAtEnd,
                behindAtStart, warnings, newProfiles, timeline, hostSteal, serverCores, serverBackgroundCores,
                generatorCores, generatorCpus);
    }

    /**
     * The server's CPU in cores without its lower-priority threads' (all of it when theirs is unknown): what its
     * request path used, the part that has to fit in its cores for a rate to be held.
     */
    public double serverForegroundCores() {
        return Double.isNaN(serverBackgroundCores) ? serverCores : serverCores - serverBackgroundCores;
    }

    public boolean closedLoop() {
        return targetRate == 0;
    }

    /**
     * The server's CPU per answer in the window, in microseconds (its CPU time over the answers received); NaN when
     * its CPU is unknown or nothing was answered.
     */
    public double serverMicrosPerRequest() {
        double rate = achievedRate();
        return Double.isNaN(serverCores) || rate <= 0 ? Double.NaN : serverCores * 1e6 / rate;
    }

    /** Responses per second received in the window. */
    public double achievedRate() {
        return seconds > 0 ? completed / seconds : 0;
    }

    /** Achieved / target (1 for closed loop). */
    public double achievedRatio() {
        return closedLoop() ? 1 : achievedRate() / targetRate;
    }

    /** wrk2's "Non-2xx or 3xx responses": every status above 399. */
    public long non2xx3xx() {
        long n = 0;
        for (var e : statusCounts.entrySet()) {
            if (e.getKey() > 399 || e.getKey() < 100) {
                n += e.getValue();
            }
        }
        return n;
    }

    /**
     * Failed requests for the SLO: socket errors, 5xx, and 4xx other than 404 (a GET of an absent key is a valid
     * answer).
     */
    public long failed() {
        long n = errors.total();
        for (var e : statusCounts.entrySet()) {
            int code = e.getKey();
            if (code >= 500 || code < 100 || (code >= 400 && code != 404)) {
                n += e.getValue();
            }
        }
        return n;
    }

    /** {@link #failed()} over everything attempted. */
    public double errorRatio() {
        long attempted = completed + errors.total();
        return attempted == 0 ? 0 : (double) failed() / attempted;
    }

    /** Corrected latency at {@code percentile} (0..100), µs. */
    public long percentile(double percentile) {
        return corrected.getTotalCount() == 0 ? 0 : corrected.getValueAtPercentile(percentile);
    }

    /** {@code 10000 req/s} or {@code max (closed loop)}. */
    public String rateLabel() {
        return closedLoop() ? "max (closed loop)" : Units.rate(targetRate) + " req/s";
    }

    /** The generator lag histogram's summary for humans. */
    public String lagSummary() {
        if (lag.getTotalCount() == 0) {
            return "no samples";
        }
        return String.format(Locale.ROOT, "p50 %s, p99 %s, p99.9 %s, max %s",
                Units.timeMicros(lag.getValueAtPercentile(50)), Units.timeMicros(lag.getValueAtPercentile(99)),
                Units.timeMicros(lag.getValueAtPercentile(99.9)), Units.timeMicros(lag.getMaxValue()));
    }

    /** Kinds of the warnings, for tests and JSON. */
    public List<Warning.Kind> warningKinds() {
        List<Warning.Kind> kinds = new ArrayList<>();
        for (Warning w : warnings) {
            kinds.add(w.kind());
        }
        return kinds;
    }
}
