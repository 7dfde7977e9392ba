package dev.larder.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Everything a {@code larder bench} run needs, validated once; the CLI builds it from flags with {@link #builder()}.
 *
 * @param targets        servers to measure, in order (more than one = a comparison in one report)
 * @param rate           total requests/s over all connections; 0 = closed loop (as fast as answers come)
 * @param connections    keep-alive connections, one request in flight on each
 * @param threads        generator threads (event loops); connections are spread over them
 * @param warmup         load before the measured window, excluded from the results
 * @param duration       the measured window
 * @param timeout        a request unanswered this long counts as a timeout and its connection is reopened
 * @param workload       what to send
 * @param prefill        PUT {@code k1..k<keys>} before the warm-up (needed for meaningful GETs)
 * @param seed           seed of every random choice (ids, mix, values, Poisson gaps), for repeatable runs
 * @param arrivals       how each connection spaces its requests at a fixed rate ({@link Arrivals})
 * @param headers        extra request headers ({@code Name: value})
 * @param json           JSON summary file, {@code -} for stdout instead of the text, or {@code null}
 * @param hgrm           HdrHistogram percentile file of the corrected latency, or {@code null}; in a sweep or a
 *                       comparison the target and rate are added to the name
 * @param reportDir      directory for the HTML report (and profiles, .hgrm files), or {@code null}
 * @param profileEvents  flame graphs to fetch from the server's admin endpoint during each measured window
 * @param serverCommand  the command that runs {@code larder} (its {@code serve} subcommand is appended), for
 *                       targets bench launches
 * @param serverCpus     CPU list for launched servers ({@code taskset -c}), or {@code null}
 * @param commandLine    the command as typed, for the report
 */
public record BenchOptions(List<Target> targets, double rate, int connections, int threads, Duration warmup,
                           Duration duration, Duration timeout, Workload workload, boolean prefill, long seed,
                           Arrivals arrivals, List<String> headers, Path json, Path hgrm, Path reportDir,
                           List<String> profileEvents, List<String> serverCommand, String serverCpus,
                           String commandLine) {

    /** Events the admin endpoint profiles. */
    public static final Set<String> PROFILE_EVENTS = Set.of("cpu", "alloc", "lock", "wall");

    public BenchOptions {
        targets = List.copyOf(targets);
        headers = List.copyOf(headers);
        profileEvents = List.copyOf(profileEvents);
        serverCommand = List.copyOf(serverCommand);
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("url: missing (expected: a URL, or --compare specs)");
        }
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("rate: " + rate + " (expected: >= 0; 0 = closed loop)");
        }
        if (connections < 1) {
            throw new IllegalArgumentException("connections: " + connections + " (expected: > 0)");
        }
        if (threads < 1 || threads > connections) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: 1.." + connections
                    + ", at most one per connection)");
        }
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("warmup: " + warmup + " (expected: >= 0)");
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration: " + duration + " (expected: > 0)");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
        }
        if (workload == null) {
            throw new IllegalArgumentException("workload: required");
        }
        if (arrivals == null) {
            throw new IllegalArgumentException("arrivals: required");
        }
        for (String h : headers) {
            if (h.indexOf(':') <= 0 || h.indexOf('\n') >= 0 || h.indexOf('\r') >= 0) {
                throw new IllegalArgumentException("header: '" + h + "' (expected: Name: value)");
            }
        }
        for (String e : profileEvents) {
            if (!PROFILE_EVENTS.contains(e)) {
                throw new IllegalArgumentException("profile: '" + e + "' (expected: cpu, alloc, lock or wall)");
            }
        }
        for (Target t : targets) {
            if (t.launched() && serverCommand.isEmpty()) {
                throw new IllegalArgumentException("compare: '" + t.label() + "' needs a server to launch, but no "
                        + "server command is known");
            }
        }
        long labels = targets.stream().map(Target::label).distinct().count();
        if (labels != targets.size()) {
            throw new IllegalArgumentException("compare: two targets have the same label (name them: label=SPEC)");
        }
    }

    /** Where profiles and .hgrm files of a report go: the report directory, else {@code ./bench-results}. */
    public Path outputDir() {
        return reportDir != null ? reportDir : Path.of("bench-results");
    }

    /** True if the JSON summary replaces the text on stdout. */
    public boolean jsonToStdout() {
        return json != null && json.toString().equals("-");
    }

    /** One line describing the generator settings, for the report. */
    public String describe() {
        return String.format(Locale.ROOT, "rate=%s connections=%d threads=%d warmup=%ss duration=%ss timeout=%ss "
                        + "workload=%s %s", rate == 0 ? "0 (closed loop)" : Units.rate(rate), connections, threads,
                seconds(warmup), seconds(duration), seconds(timeout), workload.describe(), keysAndValues());
    }

    /**
     * The settings that hold for every phase of {@code bench tail}, whose rates, durations and requests change from
     * phase to phase (they are in {@link TailOptions#describe()}).
     */
    public String describeConnections() {
        return String.format(Locale.ROOT, "connections=%d threads=%d timeout=%ss %s", connections, threads,
                seconds(timeout), keysAndValues());
    }

    private String keysAndValues() {
        return String.format(Locale.ROOT, "keys=%d distribution=%s put-ids=%s value-size=%s prefill=%s seed=%d "
                        + "arrivals=%s transport=%s", workload.keys(), workload.distribution().flag(),
                workload.randomPutIds() ? "random" : "sequential", workload.valueSize(), prefill, seed,
                arrivals.flag(), LoadGenerator.transportName());
    }

    private static String seconds(Duration d) {
        double s = d.toNanos() / 1e9;
        return s == Math.rint(s) ? Long.toString((long) s) : Double.toString(s);
    }

    /** A copy with another rate (sweeps). */
    public BenchOptions withRate(double newRate) {
        return new BenchOptions(targets, newRate, connections, threads, warmup, duration, timeout, workload, prefill,
                seed, arrivals, headers, json, hgrm, reportDir, profileEvents, serverCommand, serverCpus,
                commandLine);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Mutable builder; {@link #build()} validates. Defaults match the CLI's. */
    public static final class Builder {
        private final List<Target> targets = new ArrayList<>();
        private double rate = 1000;
        private int connections = 64;
        private int threads = 1;
        private Duration warmup = Duration.ofSeconds(10);
        private Duration duration = Duration.ofSeconds(30);
        private Duration timeout = Duration.ofSeconds(10);
        private Workload workload = Workload.of(Operation.GET, 100_000, KeyDistribution.UNIFORM, false,
                ValueSize.fixed(64));
        private boolean prefill;
        private long seed = 42;
        private Arrivals arrivals = Arrivals.UNIFORM;
        private List<String> headers = List.of();
        private Path json;
        private Path hgrm;
        private Path reportDir;
        private List<String> profileEvents = List.of();
        private List<String> serverCommand = List.of();
        private String serverCpus;
        private String commandLine = "";

        public Builder target(Target t) {
            targets.add(t);
            return this;
        }

        public Builder rate(double v) {
            rate = v;
            return this;
        }

        public Builder connections(int v) {
            connections = v;
            return this;
        }

        public Builder threads(int v) {
            threads = v;
            return this;
        }

        public Builder warmup(Duration v) {
            warmup = v;
            return this;
        }

        public Builder duration(Duration v) {
            duration = v;
            return this;
        }

        public Builder timeout(Duration v) {
            timeout = v;
            return this;
        }

        public Builder workload(Workload v) {
            workload = v;
            return this;
        }

        public Builder prefill(boolean v) {
            prefill = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder arrivals(Arrivals v) {
            arrivals = v;
            return this;
        }

        public Builder headers(List<String> v) {
            headers = v;
            return this;
        }

        public Builder json(Path v) {
            json = v;
            return this;
        }

        public Builder hgrm(Path v) {
            hgrm = v;
            return this;
        }

        public Builder reportDir(Path v) {
            reportDir = v;
            return this;
        }

        public Builder profileEvents(List<String> v) {
            profileEvents = v;
            return this;
        }

        public Builder serverCommand(List<String> v) {
            serverCommand = v;
            return this;
        }

        public Builder serverCpus(String v) {
            serverCpus = v;
            return this;
        }

        public Builder commandLine(String v) {
            commandLine = v;
            return this;
        }

        public BenchOptions build() {
            return new BenchOptions(targets, rate, connections, threads, warmup, duration, timeout, workload,
                    prefill, seed, arrivals, headers, json, hgrm, reportDir, profileEvents, serverCommand,
                    serverCpus, commandLine);
        }
    }
}
