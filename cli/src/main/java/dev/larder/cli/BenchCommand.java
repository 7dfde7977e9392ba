package dev.larder.cli;

import dev.larder.bench.Arrivals;
import dev.larder.bench.Bench;
import dev.larder.bench.BenchException;
import dev.larder.bench.BenchOptions;
import dev.larder.bench.KeyDistribution;
import dev.larder.bench.Operation;
import dev.larder.bench.Slo;
import dev.larder.bench.SweepOptions;
import dev.larder.bench.TailBench;
import dev.larder.bench.TailOptions;
import dev.larder.bench.TailPhase;
import dev.larder.bench.Target;
import dev.larder.bench.ValueSize;
import dev.larder.bench.Workload;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code larder bench}: an open-loop, coordinated-omission-corrected load generator (wrk2's method) with Larder's
 * workloads; {@code larder bench sweep} finds the breakdown point, {@code larder bench tail} holds the tail through
 * workload switches. The flags map onto {@link BenchOptions} (and {@link SweepOptions}, {@link TailOptions}); the
 * measuring is done in module {@code bench}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, subcommands = {BenchCommand.SweepCommand.class, BenchCommand.TailCommand.class},
        description = {"Sends requests at a constant rate (open loop, as wrk2 does) and reports latency from the time "
                + "each request was due, beside the uncorrected latency, in wrk2's text layout.",
                "Example: larder bench -R 20000 -d 30s --workload get --prefill http://127.0.0.1:8080"},
        footer = {"", "Honesty checks print WARNING lines when the achieved rate is below 99%% of the target, when "
                + "connections < rate x p99, or when the generator itself fell behind.",
                "See docs/benchmarking.md."})
public final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    LoadFlags flags;

    @Mixin
    WindowFlags window;

    @Option(names = {"-R", "--rate"}, converter = RateConverter.class,
            description = "Total requests/s over all connections (10k, 1.5M). 0 = closed loop: each connection "
                    + "sends as soon as it is answered (maximum throughput; latency then NOT corrected).")
    Double rate;

    @Override
    public Integer call() {
        if (rate == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--rate=<rate>' "
                    + "(requests/s; 0 = closed loop)");
        }
        return flags.execute(spec, rate, window.warmup, window.duration,
                (options, out, err) -> Bench.run(options, null, out, err));
    }

    /** {@code larder bench sweep}: steps the rate and finds the highest one that holds the SLO. */
    @Command(name = "sweep", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false,
            description = {"Runs the load at rising rates from --from to --to (then bisects between the last rate "
                    + "that held the SLO and the first that missed) and reports the breakdown point: the highest "
                    + "rate with the SLO's latency, >= 99%% of the target rate achieved and < 0.1%% errors.",
                    "Example: larder bench sweep --from 5k --to 50k --step 5k --slo p99=10ms -d 20s "
                            + "--report out/ http://127.0.0.1:8080"})
    static final class SweepCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        LoadFlags flags;

        @Mixin
        WindowFlags window;

        @Mixin
        SloFlag slo;

        @Option(names = "--from", required = true, converter = RateConverter.class,
                description = "First rate, requests/s.")
        double from;

        @Option(names = "--to", required = true, converter = RateConverter.class,
                description = "Last rate of the steps, requests/s.")
        double to;

        @Option(names = "--step", converter = RateConverter.class,
                description = "Rate increment (default: (to - from) / 9, ten steps).")
        Double step;

        @Option(names = "--refine", defaultValue = "2",
                description = "Bisection runs between the last rate that held and the first that missed "
                        + "(default: ${DEFAULT-VALUE}).")
        int refine;

        @Option(names = "--keep-going",
                description = "Keep stepping up to --to after the first miss (full curves in the report).")
        boolean keepGoing;

        @Option(names = "--pause", defaultValue = "2s",
                description = "Idle time between rates so server queues drain (default: ${DEFAULT-VALUE}).")
        Duration pause;

        @Option(names = "--initial-warmup",
                description = "Warm-up of the first rate, for a freshly started server's JIT and caches (default: "
                        + "3 x --warmup).")
        Duration initialWarmup;

        @Override
        public Integer call() {
            SweepOptions sweep;
            try {
                sweep = new SweepOptions(from, to, step != null ? step : SweepOptions.defaultStep(from, to), refine,
                        slo.parse(), keepGoing, pause,
                        initialWarmup != null ? initialWarmup : window.warmup.multipliedBy(3));
            } catch (IllegalArgumentException e) {
                throw CommandSupport.invalid(spec, e);
            }
            return flags.execute(spec, from, window.warmup, window.duration,
                    (options, out, err) -> Bench.run(options, sweep, out, err));
        }
    }

    /** {@code larder bench tail}: the phase run of issue 13 and, with --sustainable, the sustainable rates. */
    @Command(name = "tail", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false,
            description = {"One session of the tail benchmark: a closed-loop PUT warm-up; the capacity of PUT and of "
                    + "GET (closed loop); then the phases (default PUT, GET, MIX, PUT, GET) one after another on the "
                    + "same connections, each at --load of its op's capacity, printing each phase's p50/p99/p99.9/max, "
                    + "the seconds whose p99 is above the SLO and what the switch into it cost. With --nginx URL the "
                    + "same phases at the same rates against that server (nginx 'return 200') for the HTTP ceiling; "
                    + "with --sustainable the highest PUT and GET rates that hold the SLO for --hold right after a "
                    + "write phase (bisection). GETs read keys written before: uniform over the ids written so far.",
                    "Example: larder bench tail --nginx http://127.0.0.1:18090 --report out/tail "
                            + "http://127.0.0.1:8080"})
    static final class TailCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        LoadFlags flags;

        @Mixin
        SloFlag slo;

        @Option(names = "--warmup", defaultValue = "20s",
                description = "Closed-loop PUT before the capacity runs, unmeasured; 0 skips it "
                        + "(default: ${DEFAULT-VALUE}).")
        Duration warmup;

        @Option(names = "--capacity-duration", defaultValue = "15s",
                description = "Each closed-loop capacity run, PUT then GET (default: ${DEFAULT-VALUE}).")
        Duration capacityDuration;

        @Option(names = "--phase-duration", defaultValue = "30s",
                description = "Each phase (default: ${DEFAULT-VALUE}).")
        Duration phaseDuration;

        @Option(names = "--load", defaultValue = "0.75",
                description = "Rate of each phase as a fraction of its op's capacity, 0 < load <= 1; the mix's "
                        + "capacity is the weighted harmonic mean of PUT's and GET's (default: ${DEFAULT-VALUE}).")
        double load;

        @Option(names = "--rates", paramLabel = "KIND=RATE[,...]",
                description = "Fixed phase rates in req/s, e.g. put=60000,get=40000: the phases of those kinds run at "
                        + "them instead of --load x the measured capacity, so two builds or two sets of flags meet the "
                        + "same load.")
        String rates;

        @Option(names = "--phases", defaultValue = "put,get,mix,put,get",
                description = "The phases in order: put, get, mix (its weights: --mix, default get=90,put=10) "
                        + "(default: ${DEFAULT-VALUE}).")
        String phases;

        @Option(names = "--switch-window", defaultValue = "5s",
                description = "A switch's cost counts the answers above the SLO bound in this first part of the "
                        + "phase (default: ${DEFAULT-VALUE}).")
        Duration switchWindow;

        @Option(names = "--nginx", paramLabel = "URL",
                description = "Replay the phases at the same rates against this server (nginx 'return 200', "
                        + "../shared/bench/nginx-ceiling.conf) and print its p99 beside Larder's.")
        URI nginx;

        @Option(names = "--nginx-own-load",
                description = "With --nginx: also measure nginx's own closed-loop capacities and run the same phases "
                        + "against it at --load of those: the control that says whether this machine and generator "
                        + "hold the SLO at that load for a server that does no work.")
        boolean nginxOwnLoad;

        @Option(names = "--nginx-sustainable",
                description = "With --nginx and --sustainable: run the same search against nginx too (between 0 and "
                        + "its own closed-loop capacities, after the same write phases): the breakdown point this "
                        + "machine and generator allow a server that does no work.")
        boolean nginxSustainable;

        @Option(names = "--speed-probe", defaultValue = "5s",
                description = "With --nginx: read the machine's speed as nginx's closed-loop GET rate for this long "
                        + "before the capacity runs, after the phases and after nginx's phases, and warn when it "
                        + "moved by more than 15%%; 0 skips it (default: ${DEFAULT-VALUE}, and off without --nginx).")
        Duration speedProbe;

        @Option(names = "--sustainable",
                description = "Also find the sustainable rate of PUT and GET: the highest rate whose p99 holds the "
                        + "SLO for --hold right after a write phase, by bisection between 0 and the capacity.")
        boolean sustainable;

        @Option(names = "--sustainable-ops", paramLabel = "OPS", defaultValue = "get,put",
                description = "With --sustainable: the ops to search, get, put or both, GET first either way; one "
                        + "alone halves the search, to compare two builds or modes on it (default: ${DEFAULT-VALUE}).")
        String sustainableOps;

        @Option(names = "--hold", defaultValue = "60s",
                description = "How long a rate must hold the SLO to be sustainable (default: ${DEFAULT-VALUE}).")
        Duration hold;

        @Option(names = "--bisect", defaultValue = "5",
                description = "Bisection steps per op for --sustainable; resolution = capacity / 2^steps "
                        + "(default: ${DEFAULT-VALUE}).")
        int bisect;

        @Override
        public Integer call() {
            if (!flags.compare.isEmpty() || !flags.profile.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "--compare and --profile are not supported by "
                        + "bench tail: it measures one server (--nginx adds the HTTP ceiling)");
            }
            if (spec.commandLine().getParseResult().hasMatchedOption("--workload")) {
                throw new ParameterException(spec.commandLine(), "--workload: the phases choose the requests "
                        + "(see --phases, and --mix for the MIX phase)");
            }
            if (!sustainable && spec.commandLine().getParseResult().hasMatchedOption("--sustainable-ops")) {
                throw new ParameterException(spec.commandLine(), "--sustainable-ops: needs --sustainable (the search "
                        + "it narrows)");
            }
            TailOptions tail;
            try {
                tail = new TailOptions(warmup, capacityDuration, phaseDuration, load, TailPhase.parseList(phases),
                        Workload.parseMix(flags.mix != null ? flags.mix : "get=90,put=10"), slo.parse(), switchWindow,
                        nginx, sustainable, hold, bisect, rates == null ? null : TailOptions.parseRates(rates),
                        nginxOwnLoad, nginxSustainable, TailOptions.parseSustainableOps(sustainableOps),
                        nginx == null && !spec.commandLine().getParseResult().hasMatchedOption("--speed-probe")
                                ? Duration.ZERO : speedProbe);
            } catch (IllegalArgumentException e) {
                throw CommandSupport.invalid(spec, e);
            }
            return flags.execute(spec, 0, warmup, phaseDuration,
                    (options, out, err) -> TailBench.run(options, tail, out, err));
        }
    }

    /** The measured window of {@code bench} and {@code bench sweep}. */
    static final class WindowFlags {

        @Option(names = {"-d", "--duration"}, defaultValue = "30s",
                description = "Measured window (default: ${DEFAULT-VALUE}).")
        Duration duration;

        @Option(names = "--warmup", defaultValue = "10s",
                description = "Load before the measured window, excluded from results (default: ${DEFAULT-VALUE}).")
        Duration warmup;
    }

    /** The objective of {@code bench sweep} and {@code bench tail}. */
    static final class SloFlag {

        @Option(names = "--slo", defaultValue = Slo.DEFAULT,
                description = "Latency bounds on the corrected latency, e.g. p99=10ms or p50=2ms,p99.9=50ms "
                        + "(default: ${DEFAULT-VALUE}); a rate must also achieve >= 99%% of its target with < 0.1%% "
                        + "failed requests (socket errors, 5xx, 4xx other than 404).")
        String slo;

        Slo parse() {
            return Slo.parse(slo);
        }
    }

    /** What a command does with the options the shared flags built. */
    interface Runner {
        void run(BenchOptions options, PrintStream out, PrintStream err);
    }

    /** The flags {@code bench}, {@code bench sweep} and {@code bench tail} share. */
    static final class LoadFlags {

        @Parameters(index = "0", arity = "0..1", paramLabel = "URL",
                description = "Server to load, e.g. http://127.0.0.1:8080 (optional when --compare names the "
                        + "servers).")
        String url;

        @Option(names = {"-c", "--connections"}, defaultValue = "64",
                description = "Keep-alive connections, one request in flight on each (default: ${DEFAULT-VALUE}).")
        int connections;

        @Option(names = {"-t", "--threads"}, defaultValue = "1",
                description = "Generator threads (event loops) (default: ${DEFAULT-VALUE}).")
        int threads;

        @Option(names = "--timeout", defaultValue = "10s",
                description = "A request unanswered this long is a timeout error; its connection is reopened "
                        + "(default: ${DEFAULT-VALUE}).")
        Duration timeout;

        @Option(names = {"-w", "--workload"}, defaultValue = "get",
                description = "put, get, delete, range (every key with prefix kN), or url (GET the URL as given, "
                        + "like plain wrk) (default: ${DEFAULT-VALUE}).")
        String workload;

        @Option(names = "--mix", description = "Weighted mix instead of one workload, e.g. get=90,put=10.")
        String mix;

        @Option(names = "--keys", defaultValue = "100000",
                description = "Key space k1..kN for get/delete/range and random-id puts (default: ${DEFAULT-VALUE}).")
        long keys;

        @Option(names = "--distribution", defaultValue = "uniform",
                description = "How get/delete/range pick keys: uniform, zipfian (YCSB, theta 0.99) or written "
                        + "(uniform over the ids sequential PUTs wrote so far; bench tail's reads use it for uniform) "
                        + "(default: ${DEFAULT-VALUE}).")
        String distribution;

        @Option(names = "--put-ids", defaultValue = "sequential",
                description = "sequential (new ids after the prefilled ones, like put.lua) or random (uniform "
                        + "over --keys) (default: ${DEFAULT-VALUE}).")
        String putIds;

        @Option(names = "--value-size", defaultValue = "64",
                description = "PUT body size: fixed (64, 4k) or a range (64-4k) (default: ${DEFAULT-VALUE}).")
        String valueSize;

        @Option(names = "--prefill", description = "PUT k1..k<keys> before the warm-up (do it for get/range).")
        boolean prefill;

        @Option(names = "--seed", defaultValue = "42",
                description = "Seed of the ids, mix, values and Poisson gaps (default: ${DEFAULT-VALUE}).")
        long seed;

        @Option(names = "--arrivals", defaultValue = "uniform",
                description = "How each connection spaces its requests at a fixed rate: uniform (exact intervals, "
                        + "the connections evenly shifted: requests arrive one at a time) or poisson (exponential "
                        + "gaps: together a Poisson stream, clumps as from independent clients) "
                        + "(default: ${DEFAULT-VALUE}).")
        String arrivals;

        @Option(names = {"-H", "--header"}, description = "Extra request header 'Name: value' (repeatable).")
        List<String> headers = new ArrayList<>();

        @Option(names = "--json", paramLabel = "FILE",
                description = "Write a JSON summary; '-' prints it on stdout (the text then goes to stderr).")
        Path json;

        @Option(names = "--hgrm", paramLabel = "FILE",
                description = "Write the corrected latency as an HdrHistogram .hgrm file (uncorrected beside it; "
                        + "in a sweep or comparison the target and rate are added to the name).")
        Path hgrm;

        @Option(names = "--report", paramLabel = "DIR",
                description = "Write a self-contained HTML report (DIR/index.html, with .hgrm files and profiles).")
        Path report;

        @Option(names = "--profile", split = ",", paramLabel = "EVENT",
                description = "During each measured window fetch flame graphs from the server's admin endpoint: "
                        + "cpu, alloc, lock, wall (comma-separated; they run one after another).")
        List<String> profile = new ArrayList<>();

        @Option(names = "--admin-url", paramLabel = "URL",
                description = "Server admin endpoint for --profile and settings (default: the target host, port "
                        + Target.DEFAULT_ADMIN_PORT + ").")
        URI adminUrl;

        @Option(names = "--server-log", paramLabel = "FILE",
                description = "A file with the server's startup line ('larder started: ...'), for the report.")
        Path serverLog;

        @Option(names = "--compare", paramLabel = "SPEC",
                description = "Also measure another server (repeatable): [label=]http://host:port for a running "
                        + "one, or [label=]FLAGS to start 'larder serve FLAGS' from this jar on a fresh data "
                        + "directory, e.g. --compare \"sync=--workers 0\" --compare \"async=\".")
        List<String> compare = new ArrayList<>();

        @Option(names = "--label", description = "Name of the URL's server in outputs (default: host:port).")
        String label;

        @Option(names = "--server-cpus", paramLabel = "LIST",
                description = "Pin servers that bench starts with taskset -c LIST (e.g. 1).")
        String serverCpus;

        int execute(CommandSpec spec, double rate, Duration warmup, Duration duration, Runner runner) {
            CommandSupport.leakDetectionOffUnlessAsked();
            BenchOptions options;
            try {
                options = options(spec, rate, warmup, duration);
            } catch (IllegalArgumentException e) {
                throw CommandSupport.invalid(spec, e);
            }
            // picocli's writers (tests replace them), as the streams the bench module prints to.
            PrintStream out = CommandSupport.printStream(spec.commandLine().getOut());
            PrintStream err = CommandSupport.printStream(spec.commandLine().getErr());
            try {
                runner.run(options, out, err);
                return 0;
            } catch (BenchException e) {
                err.println("larder bench: " + e.getMessage());
                return 1;
            } finally {
                out.flush();
                err.flush();
            }
        }

        BenchOptions options(CommandSpec spec, double rate, Duration warmup, Duration duration) {
            BenchOptions.Builder b = BenchOptions.builder();
            if (url != null) {
                URI u = Target.validate(URI.create(url));
                Target t = Target.external(label != null ? label : u.getHost() + ":" + u.getPort(), u);
                if (adminUrl != null) {
                    t = t.withAdminUrl(adminUrl);
                }
                if (serverLog != null) {
                    t = t.withServerLog(serverLog);
                }
                b.target(t);
            }
            for (int i = 0; i < compare.size(); i++) {
                Target t = Target.parse(compare.get(i), i + 1);
                if (adminUrl != null && !t.launched() && url == null && i == 0) {
                    t = t.withAdminUrl(adminUrl);
                }
                b.target(t);
            }
            List<Workload.Weighted> weights = mix != null ? Workload.parseMix(mix)
                    : List.of(new Workload.Weighted(Operation.fromFlag(workload), 1));
            Workload w = new Workload(weights, keys, KeyDistribution.fromFlag(distribution), putIdsRandom(),
                    valueSize(valueSize));
            return b.rate(rate).connections(connections).threads(threads).warmup(warmup).duration(duration)
                    .timeout(timeout).workload(w).prefill(prefill).seed(seed).arrivals(Arrivals.fromFlag(arrivals))
                    .headers(headers).json(json).hgrm(hgrm)
                    .reportDir(report).profileEvents(profile.stream().map(s -> s.trim().toLowerCase(Locale.ROOT))
                            .filter(s -> !s.isEmpty()).toList())
                    .serverCommand(ServerJvm.serverCommand()).serverCpus(serverCpus)
                    .commandLine(commandLine(spec)).build();
        }

        private boolean putIdsRandom() {
            return switch (putIds.trim().toLowerCase(Locale.ROOT)) {
                case "sequential", "seq" -> false;
                case "random", "uniform" -> true;
                default -> throw new IllegalArgumentException("put-ids: '" + putIds
                        + "' (expected: sequential or random)");
            };
        }

        static ValueSize valueSize(String text) {
            SizeConverter sizes = new SizeConverter();
            String t = text.trim();
            int dash = t.indexOf('-', 1);
            try {
                if (dash < 0) {
                    return ValueSize.fixed(Math.toIntExact(sizes.convert(t)));
                }
                return new ValueSize(Math.toIntExact(sizes.convert(t.substring(0, dash))),
                        Math.toIntExact(sizes.convert(t.substring(dash + 1))));
            } catch (TypeConversionException | ArithmeticException e) {
                throw new IllegalArgumentException("value-size: '" + text + "' (expected: 64, 4k or 64-4k)");
            }
        }

        private static String commandLine(CommandSpec spec) {
            List<String> args = spec.root().commandLine().getParseResult().originalArgs();
            StringBuilder sb = new StringBuilder("java -jar larder.jar");
            for (String a : args) {
                sb.append(' ');
                sb.append(a.isEmpty() || a.matches(".*[\\s\"'$].*") ? "'" + a.replace("'", "'\\''") + "'" : a);
            }
            return sb.toString();
        }
    }

    /** Reads rates: {@code 20000}, {@code 20k}, {@code 1.5k}, {@code 1M}. */
    static final class RateConverter implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            double scale = 1;
            if (v.endsWith("k")) {
                scale = 1e3;
                v = v.substring(0, v.length() - 1);
            } else if (v.endsWith("m")) {
                scale = 1e6;
                v = v.substring(0, v.length() - 1);
            }
            try {
                double d = Double.parseDouble(v) * scale;
                if (d < 0 || Double.isNaN(d) || Double.isInfinite(d)) {
                    throw new NumberFormatException();
                }
                return d;
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a rate (expected e.g. 20000, 20k, 1.5M)");
            }
        }
    }
}
