package dev.larder.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code larder bench}: runs the load (one rate, or a sweep) against every target in turn, prints wrk2-style text
 * as it goes, then writes the JSON summary, .hgrm files and the HTML report that were asked for.
 */
public final class Bench {

    private final BenchOptions options;
    private final SweepOptions sweep;
    private final PrintStream out;

    private Zipfian zipfian;

    private Bench(BenchOptions options, SweepOptions sweep, PrintStream out, PrintStream err) {
        this.options = options;
        this.sweep = sweep;
        // With --json - the JSON owns stdout; the human-readable text moves to stderr.
        this.out = options.jsonToStdout() ? err : out;
    }

    /**
     * Runs everything {@code options} ask for. Text goes to {@code out} (or, with {@code --json -}, the JSON goes
     * there and the text to {@code err}); problems that stop the run throw {@link BenchException}.
     *
     * @param sweep {@code null} for a single run at {@code options.rate()}
     */
    public static BenchResult run(BenchOptions options, SweepOptions sweep, PrintStream out, PrintStream err) {
        return new Bench(options, sweep, out, err).runAll(out);
    }

    private BenchResult runAll(PrintStream stdout) {
        Instant started = Instant.now();
        List<TargetResult> results = new ArrayList<>();
        for (Target target : options.targets()) {
            try (ServerHandle server = ServerHandle.open(target, options)) {
                results.add(measure(server));
            }
        }
        BenchResult result = new BenchResult(options, sweep, started, machine(), results);
        writeOutputs(result, stdout);
        return result;
    }

    private TargetResult measure(ServerHandle server) {
        RequestEncoder encoder = new RequestEncoder(server.url(), options.headers(),
                options.workload().valueSize().max(), options.seed());
        if (options.targets().size() > 1) {
            out.println("== " + server.label() + " (" + server.url() + ")");
        }
        for (String s : server.settings()) {
            out.println("  server: " + s);
        }
        AtomicLong putCursor = new AtomicLong();
        String prefill = null;
        if (options.prefill()) {
            prefill = Prefill.run(server, encoder, putCursor, options, out);
        }
        List<RunResult> runs = new ArrayList<>();
        SweepOutcome outcome = null;
        if (sweep == null) {
            runs.add(runOnce(server, encoder, options.rate(), options.warmup(), putCursor, true));
        } else {
            outcome = sweep(server, encoder, putCursor, runs);
        }
        return new TargetResult(server.label(), server.url(), server.adminUrl(), server.settings(), prefill, runs,
                outcome);
    }

    private SweepOutcome sweep(ServerHandle server, RequestEncoder encoder, AtomicLong putCursor,
                               List<RunResult> runs) {
        Slo slo = sweep.slo();
        out.printf("  sweep %s -> %s req/s step %s, SLO %s%n", Units.rate(sweep.from()), Units.rate(sweep.to()),
                Units.rate(sweep.step()), slo.describe());
        List<SweepOutcome.Point> points = new ArrayList<>();
        Double lastPass = null;
        Double firstFail = null;
        int steps = (int) Math.floor((sweep.to() - sweep.from()) / sweep.step() + 1e-9);
        for (int i = 0; i <= steps; i++) {
            double rate = Math.round(sweep.from() + i * sweep.step());
            SweepOutcome.Point p = point(server, encoder, rate, putCursor, slo, runs, points);
            if (p.held()) {
                if (firstFail == null) {
                    lastPass = rate;
                }
            } else if (firstFail == null) {
                firstFail = rate;
                if (!sweep.keepGoing()) {
                    break;
                }
            }
        }
        if (firstFail != null && lastPass != null) {
            double lo = lastPass;
            double hi = firstFail;
            for (int i = 0; i < sweep.refine(); i++) {
                double mid = Math.round((lo + hi) / 2);
                if (mid <= lo || mid >= hi) {
                    break;
                }
                if (point(server, encoder, mid, putCursor, slo, runs, points).held()) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lastPass = lo;
        }
        SweepOutcome outcome = new SweepOutcome(slo, points, lastPass, firstFail == null);
        printSweepTable(server.label(), outcome);
        return outcome;
    }

    /**
     * A rate's warnings under its line, all but {@code RATE_NOT_ACHIEVED} (its verdict already says so); sweeps and
     * the sustainable search print them alike.
     */
    static void printWarnings(PrintStream out, RunResult r) {
        for (Warning w : r.warnings()) {
            if (w.kind() != Warning.Kind.RATE_NOT_ACHIEVED) {
                out.println("            WARNING: " + w.message());
            }
        }
    }

    private SweepOutcome.Point point(ServerHandle server, RequestEncoder encoder, double rate, AtomicLong putCursor,
                                     Slo slo,
                                     List<RunResult> runs, List<SweepOutcome.Point> points) {
        if (!runs.isEmpty() && !sweep.pause().isZero()) {
            Sleep.millis(sweep.pause().toMillis());
        }
        // The first rate also warms a cold server up.
        Duration warmup = runs.isEmpty() ? sweep.initialWarmup() : options.warmup();
        RunResult r = runOnce(server, encoder, rate, warmup, putCursor, false);
        SweepOutcome.Point p = SweepOutcome.Point.judged(r, slo);
        if (p.missedWhileDisturbed()) {
            // A sweep stops at its first miss, so one stall of this process (or of the host) would otherwise set the
            // breakdown point.
            out.printf(Locale.ROOT, "  %8s req/s: MISS (%s) while %s: measured again%n",
                    Units.rate(rate), String.join("; ", p.violations()), p.disturbance());
            Sleep.millis(sweep.pause().toMillis());
            r = runOnce(server, encoder, rate, options.warmup(), putCursor, false);
            p = SweepOutcome.Point.judged(r, slo);
        }
        runs.add(r);
        points.add(p);
        out.printf(Locale.ROOT, "  %8s req/s: achieved %9.1f  p50 %9s  p99 %9s  p99.9 %9s  max %9s  errors %.2f%%  %s%n",
                Units.rate(rate), r.achievedRate(), Units.timeMicros(r.percentile(50)),
                Units.timeMicros(r.percentile(99)), Units.timeMicros(r.percentile(99.9)),
                Units.timeMicros(r.corrected().getMaxValue()), 100 * r.errorRatio(),
                p.held() ? "ok" : "MISS (" + String.join("; ", p.violations()) + ")");
        printWarnings(out, r);
        for (ProfileResult pr : r.profiles()) {
            out.println("            profile " + pr.event() + ": " + (pr.ok() ? pr.file() : pr.error()));
        }
        return p;
    }

    private void printSweepTable(String label, SweepOutcome outcome) {
        out.println();
        out.printf("  Sweep of %s, SLO: %s%n", label, outcome.slo().describe());
        out.printf("  %10s %10s %10s %10s %10s %10s %10s %8s  %s%n", "rate", "achieved", "p50", "p90", "p99",
                "p99.9", "max", "errors", "SLO");
        for (SweepOutcome.Point p : outcome.byRate()) {
            RunResult r = p.result();
            out.printf(Locale.ROOT, "  %10s %10.1f %10s %10s %10s %10s %10s %7.2f%%  %s%n", Units.rate(r.targetRate()),
                    r.achievedRate(), Units.timeMicros(r.percentile(50)), Units.timeMicros(r.percentile(90)),
                    Units.timeMicros(r.percentile(99)), Units.timeMicros(r.percentile(99.9)),
                    Units.timeMicros(r.corrected().getMaxValue()), 100 * r.errorRatio(),
                    p.held() ? "ok" : "miss");
        }
        out.println("  " + capitalize(outcome.verdict()));
        out.println();
    }

    private RunResult runOnce(ServerHandle server, RequestEncoder encoder, double rate, Duration warmup,
                              AtomicLong putCursor, boolean printWrk2) {
        if (zipfian == null && options.workload().distribution() == KeyDistribution.ZIPFIAN) {
            zipfian = new Zipfian(options.workload().keys(), Zipfian.THETA);
        }
        Zipfian z = zipfian;
        long threshold = (sweep != null ? sweep.slo() : Slo.parse(Slo.DEFAULT)).thresholdMicros();
        LoadGenerator.Plan plan = LoadGenerator.Plan.single(server.url(), rate, options.connections(),
                options.threads(), warmup, options.duration(), options.timeout(), threshold,
                t -> encoder.workload(options.workload(), z, putCursor, options.seed() * 31 + t + (long) rate),
                options.arrivals(), options.seed() * 31 + (long) rate);
        AtomicReference<Thread> profiler = new AtomicReference<>();
        List<ProfileResult> profiles = java.util.Collections.synchronizedList(new ArrayList<>());
        LoadGenerator.Listener listener = options.profileEvents().isEmpty() ? null : (start, end) -> {
            Thread t = new Thread(() -> profile(server, rate, start, end, profiles), "larder-bench-profiler");
            t.setDaemon(true);
            t.start();
            profiler.set(t);
        };
        LoadGenerator.Outcome outcome = LoadGenerator.run(plan, listener);
        Thread t = profiler.get();
        if (t != null) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(options.duration().toSeconds() + 60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        RunResult r = RunResult.merge(server.label(), server.url(), options.workload().describe(), rate,
                options.connections(), outcome.windows().get(0), List.copyOf(profiles));
        if (printWrk2) {
            Wrk2Format.header(out, r, options.duration());
            Wrk2Format.body(out, r);
        }
        return r;
    }

    // Profiles the events one after another inside the measured window, each for an equal share of it.
    private void profile(ServerHandle server, double rate, long start, long end, List<ProfileResult> into) {
        List<String> events = options.profileEvents();
        long window = TimeUnit.NANOSECONDS.toSeconds(end - start);
        int seconds = (int) Math.max(1, window / events.size());
        long wait = start - System.nanoTime();
        if (wait > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        AdminClient admin = new AdminClient(server.adminUrl());
        for (String event : events) {
            Path file = options.outputDir().resolve("profiles")
                    .resolve(fileSafe(server.label()) + "-" + Units.rate(rate) + "-" + event + ".html");
            ProfileResult p = admin.profile(event, seconds, file);
            into.add(p);
            if (!p.ok() && p.error().contains("connection refused")) {
                // The endpoint is not there: do not ask again for the other events of this run.
                for (String rest : events.subList(events.indexOf(event) + 1, events.size())) {
                    into.add(new ProfileResult(rest, seconds, null, p.error()));
                }
                return;
            }
        }
    }

    private void writeOutputs(BenchResult result, PrintStream stdout) {
        try {
            boolean many = result.targets().size() > 1 || sweep != null;
            if (options.hgrm() != null) {
                for (TargetResult t : result.targets()) {
                    for (RunResult r : t.runs()) {
                        Path file = many ? suffixed(options.hgrm(), fileSafe(t.label()) + "-" + Units.rate(r.targetRate()))
                                : options.hgrm();
                        Hgrm.write(file, r);
                        out.println("  hgrm: " + file + " (uncorrected: " + Hgrm.uncorrectedName(file) + ")");
                    }
                }
            }
            if (options.reportDir() != null) {
                Path index = HtmlReport.write(options.reportDir(), result);
                out.println("  report: " + index.toAbsolutePath().normalize());
            }
            if (options.json() != null) {
                JsonSummary.write(options, JsonSummary.of(result), out, stdout);
            }
        } catch (IOException | UncheckedIOException e) {
            throw new BenchException("cannot write results: " + e.getMessage(), e);
        }
    }

    static Path suffixed(Path file, String suffix) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String renamed = dot > 0 ? name.substring(0, dot) + "-" + suffix + name.substring(dot)
                : name + "-" + suffix;
        return file.resolveSibling(renamed);
    }

    static String fileSafe(String s) {
        return s.replaceAll("[^A-Za-z0-9_.-]", "_");
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    static String machine() {
        return String.format(Locale.ROOT, "%d cores, %s %s %s, Java %s (%s), JIT uncommon traps %s",
                Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("os.arch"), System.getProperty("java.version"),
                System.getProperty("java.vm.name"), UncommonTraps.ofThisJvm());
    }
}
