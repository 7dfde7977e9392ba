package dev.larder.bench;

import dev.larder.bench.TuneSpace.Candidate;
import dev.larder.bench.TuneSpace.Dimension;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code larder tune}'s search, in four rounds that each measure fewer candidates for longer:
 *
 * <ol>
 *   <li><b>screen</b>: the default and every other value of every dimension, one dimension at a time (coordinate
 *       screening: 14 servers for all six dimensions instead of an 864-server grid), each on a short window;
 *   <li><b>combine</b>: the best three of those, plus one candidate combining every value that beat the default in
 *       its own dimension, on twice the window; the better half goes on (successive halving);
 *   <li><b>final</b>: the two best and the default, each measured {@code repeats} more times on fresh servers, so
 *       the ranking is by the median and the spread shows the noise;
 *   <li><b>hold</b>: each finalist, on a fresh server, holds its median breakdown for {@code --hold}, stepping down
 *       when it misses ({@link TuneHold}); the finalists are ranked by the rate they held. Then, on the same server,
 *       p99 and server CPU per request at 75% of the held rate.
 * </ol>
 *
 * Every measurement is bench's own sweep (open loop, corrected latency, the SLO's definition of holding) against
 * a server launched for it, pinned like bench's {@code --compare} servers. The window is the longest that lets the
 * plan fit the budget; when even the shortest does not, the screening list is cut (round-robin over the
 * dimensions, so each keeps its most promising value) and the report says so.
 */
final class Tuner {

    /**
     * The top of every sweep, as a share of the default's closed-loop capacity. At 110% a 15-minute GET search had
     * seven of twelve candidates, the default among them, hold the top rate and tie there, and the default then held
     * that rate for 15 s: in open loop a server can hold more than one short closed-loop window measured.
     */
    private static final double TOP = 1.5;
    /**
     * The shortest warm-up and window of the closed-loop run that sets the rates. In 1 s after a 1 s warm-up a fresh
     * server is still compiling (C2 takes a third of its core for the first 3-5 s of load, docs/performance.md):
     * a 15-minute search measured 50.3k GET/s there, then the default held 75.5k for 15 s at p99 4.1 ms.
     */
    private static final Duration CALIBRATION_WARMUP = Duration.ofSeconds(5);
    private static final Duration CALIBRATION_WINDOW = Duration.ofSeconds(3);
    /** Sweep points per measurement, from 10% to {@link #TOP} of the default's closed-loop capacity. */
    private static final int STEPS = 4;
    private static final int REFINE = 2;
    /** Points a sweep is expected to take (it stops at the first miss, then bisects twice). */
    private static final double EXPECTED_POINTS = 5;
    private static final Duration PAUSE = Duration.ofMillis(300);
    /**
     * The longest wait for a server's compactions before a hold or the run at 75%. Reads leave none; a write
     * workload's missed hold may, and a step down that inherits it measures the debt, not the rate. Not in the
     * budget's estimate: the round's checks read the clock.
     */
    private static final Duration QUIET_LIMIT = Duration.ofSeconds(10);
    private static final Duration[] WINDOWS = {Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3),
        Duration.ofSeconds(5), Duration.ofSeconds(8), Duration.ofSeconds(12), Duration.ofSeconds(20)};

    private final TuneOptions options;
    private final PrintStream progress;
    private final PrintStream benchLog;
    private final long startNanos = System.nanoTime();
    private final Instant started = Instant.now();
    private final List<String> notes = new ArrayList<>();
    private final Map<Candidate, List<TuneResult.Measurement>> measured = new LinkedHashMap<>();
    private final Map<Candidate, long[]> at75 = new LinkedHashMap<>();
    private final Map<Candidate, List<SweepOutcome.Point>> holds = new LinkedHashMap<>();
    /** Seconds a measurement costs beyond its sweep points: launching, the help probe, the prefill. */
    private double overheadSeconds;
    private double capacity;
    private int done;
    private int planned;

    private Tuner(TuneOptions options, PrintStream progress, PrintStream benchLog) {
        this.options = options;
        this.progress = progress;
        this.benchLog = benchLog;
    }

    /**
     * Runs the search. {@code progress} gets the progress bar, {@code benchLog} bench's own text of every run.
     *
     * @throws TooSmallBudget when the budget cannot hold the default and one candidate at the shortest window
     */
    static TuneResult run(TuneOptions options, PrintStream progress, PrintStream benchLog) {
        return new Tuner(options, progress, benchLog).search();
    }

    /** The budget cannot hold even the smallest search. */
    static final class TooSmallBudget extends RuntimeException {
        TooSmallBudget(String message) {
            super(message);
        }
    }

    /**
     * The smallest budget for a search: the default and one candidate at the shortest window, and the default's
     * holds and its p99 and CPU per request at 75% of the rate held.
     */
    static Duration minimumBudget(TuneOptions options) {
        double overhead = guessOverhead(options);
        return Duration.ofSeconds((long) Math.ceil(2 * cost(overhead, TuneOptions.MIN_WINDOW)
                + calibrationCost(TuneOptions.MIN_WINDOW)
                + afterCost(overhead, TuneOptions.MIN_WINDOW.multipliedBy(2), options.hold())));
    }

    private static double guessOverhead(TuneOptions options) {
        // A JVM start, the help probe and the server's own JIT warm-up: about 8 s on a busy 2-core machine.
        return 8 + (options.prefill() ? 4 : 0);
    }

    /** The closed-loop run before the default's first sweep. */
    private static double calibrationCost(Duration window) {
        return (longest(window, CALIBRATION_WARMUP).toMillis() + longest(window, CALIBRATION_WINDOW).toMillis())
                / 1000.0;
    }

    private static Duration longest(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static double cost(double overhead, Duration window) {
        double w = window.toMillis() / 1000.0;
        return overhead + EXPECTED_POINTS * (1.5 * w + PAUSE.toMillis() / 1000.0);
    }

    /** One fixed-rate run at 75% of a breakdown: a server, a half-window warm-up and the window. */
    private static double at75Cost(double overhead, Duration window) {
        return overhead + 1.5 * window.toMillis() / 1000.0;
    }

    /**
     * What a finalist costs after the final round: a server, every hold it may need (the first with a whole window
     * of warm-up), then the run at 75% on the same server.
     */
    private static double afterCost(double overhead, Duration window, Duration hold) {
        double holds = hold.isZero() ? 0 : window.toMillis() / 2000.0 + TuneHold.MAX_HOLDS * holdCost(window, hold);
        return at75Cost(overhead, window) + holds;
    }

    /** One hold: a half-window warm-up and the hold. */
    private static double holdCost(Duration window, Duration hold) {
        return (window.toMillis() / 2 + hold.toMillis()) / 1000.0;
    }

    private double holdCost(Duration window) {
        return holdCost(window, options.hold());
    }

    private double afterCost(Duration window) {
        return afterCost(overheadSeconds, window, options.hold());
    }

    private TuneResult search() {
        List<Candidate> screen = TuneSpace.screening(options.dimensions());
        overheadSeconds = guessOverhead(options);
        double budget = options.budget().toMillis() / 1000.0;
        if (budget < minimumBudget(options).toSeconds()) {
            throw new TooSmallBudget("budget " + clock(budget) + " is too small for "
                    + "one candidate besides the default (at least " + minimumBudget(options).toSeconds() + "s)");
        }
        Duration window = plan(screen.size(), budget);
        int fit = screen.size();
        while (window == null && fit > 1) {
            fit--;
            window = plan(fit, budget);
        }
        if (window == null) {
            window = TuneOptions.MIN_WINDOW;
        }
        if (fit < screen.size()) {
            notes.add("budget: screened " + fit + " of " + screen.size() + " values (" + screen.subList(fit,
                    screen.size()).stream().map(Candidate::label).toList() + " left out)");
            screen = new ArrayList<>(screen.subList(0, fit));
        }
        planned = 1 + screen.size() + 4 + 3 * options.repeats();
        Duration longer = window.multipliedBy(2);

        // Round 1: screen, one dimension at a time. The default goes first and also sets the rates tried.
        measure(Candidate.DEFAULT, "screen", window, true);
        for (Candidate c : screen) {
            // The first candidate is measured whatever the clock says: the budget was checked to hold it.
            if (measured.size() > 1 && !fits(window)) {
                notes.add("budget: screening stopped before " + c.label());
                break;
            }
            measure(c, "screen", window, false);
        }

        // Round 2: the best three plus the combination of every value that beat the default in its dimension.
        double base = latest(Candidate.DEFAULT);
        Map<Dimension, String> bestValues = new EnumMap<>(Dimension.class);
        Map<Dimension, Double> bestRates = new EnumMap<>(Dimension.class);
        for (Candidate c : measured.keySet()) {
            if (c.flags().size() == 1) {
                Map.Entry<Dimension, String> f = c.flags().entrySet().iterator().next();
                double r = latest(c);
                if (r > base && r > bestRates.getOrDefault(f.getKey(), 0.0)) {
                    bestRates.put(f.getKey(), r);
                    bestValues.put(f.getKey(), f.getValue());
                }
            }
        }
        List<Candidate> round2 = new ArrayList<>(top(3, false));
        if (bestValues.size() > 1) {
            Candidate combined = new Candidate(bestValues);
            if (!round2.contains(combined)) {
                round2.add(combined);
            }
        }
        for (Candidate c : round2) {
            if (!fits(longer)) {
                notes.add("budget: round 2 stopped before " + c.label());
                break;
            }
            measure(c, "combine", longer, false);
        }

        // Round 3: the better half (at most two) and the default, again and again, for the median and the spread.
        List<Candidate> finalists = new ArrayList<>();
        finalists.add(Candidate.DEFAULT);
        for (Candidate c : topOf("combine", 2)) {
            finalists.add(c);
        }
        if (finalists.size() == 1) {
            finalists.addAll(top(1, false));
        }
        // The hold round and the ranked table's p99 and CPU columns come after this round: their time is kept out
        // of the repeats (a 15-minute search used to spend it all on repeats and leave the columns empty).
        double reserve = finalists.size() * afterCost(longer);
        for (int r = 0; r < options.repeats(); r++) {
            for (Candidate c : finalists) {
                if (secondsLeft() < cost(overheadSeconds, longer) + reserve) {
                    notes.add("budget: final round stopped after " + r + " of " + options.repeats() + " repeats");
                    r = options.repeats();
                    break;
                }
                measure(c, "final", longer, false);
            }
        }
        // Round 4, the default first: the comparison the report exists for needs its figures most.
        for (Candidate c : finalists) {
            // One hold is worth having: the later ones check the clock themselves.
            boolean hold = !options.hold().isZero() && secondsLeft() >= at75Cost(overheadSeconds, longer)
                    + longer.toMillis() / 2000.0 + holdCost(longer);
            if (hold || secondsLeft() >= at75Cost(overheadSeconds, longer)) {
                if (!hold && !options.hold().isZero()) {
                    notes.add("budget: no hold for " + c.label());
                }
                holdAndMeasureAt75(c, longer, hold);
            } else {
                notes.add("budget: no hold, p99 and CPU per request at 75% for " + c.label());
            }
        }
        progress.println();
        return result(window);
    }

    /** The longest window for which the whole plan fits {@code budget} seconds, or {@code null}. */
    private Duration plan(int screened, double budget) {
        Duration best = null;
        for (Duration w : WINDOWS) {
            Duration l = w.multipliedBy(2);
            double total = calibrationCost(w) + (1 + screened) * cost(overheadSeconds, w)
                    + 4 * cost(overheadSeconds, l)
                    + 3 * options.repeats() * cost(overheadSeconds, l) + 3 * afterCost(l);
            if (total <= budget) {
                best = w;
            }
        }
        return best;
    }

    /** Whether a sweep at {@code window} still leaves time for the default's holds and its run at 75%. */
    private boolean fits(Duration window) {
        return secondsLeft() >= cost(overheadSeconds, window) + afterCost(window.multipliedBy(2));
    }

    private double secondsLeft() {
        return options.budget().toMillis() / 1000.0 - (System.nanoTime() - startNanos) / 1e9;
    }

    private double latest(Candidate c) {
        List<TuneResult.Measurement> m = measured.get(c);
        return m == null || m.isEmpty() ? 0 : m.get(m.size() - 1).breakdown();
    }

    /** The best {@code n} measured candidates other than the default, by their latest breakdown. */
    private List<Candidate> top(int n, boolean withDefault) {
        return measured.keySet().stream().filter(c -> withDefault || !c.isDefault())
                .sorted(Comparator.comparingDouble(this::latest).reversed()).limit(n).toList();
    }

    private List<Candidate> topOf(String stage, int n) {
        return measured.entrySet().stream()
                .filter(e -> !e.getKey().isDefault() && e.getValue().get(e.getValue().size() - 1).stage().equals(stage))
                .sorted(Comparator.comparingDouble((Map.Entry<Candidate, List<TuneResult.Measurement>> e) ->
                        latest(e.getKey())).reversed())
                .limit(n).map(Map.Entry::getKey).toList();
    }

    /** One server, one sweep; the first measurement of the default also finds the capacity the rates come from. */
    private void measure(Candidate c, String stage, Duration window, boolean calibrate) {
        long t0 = System.nanoTime();
        BenchOptions launch = baseOptions(c).target(target(c)).build();
        double breakdown;
        SweepOutcome sweep;
        try (ServerHandle server = ServerHandle.open(target(c), launch, options.dataDir())) {
            boolean prefill = options.prefill();
            if (calibrate) {
                BenchResult closed = Bench.run(against(server, c).rate(0).prefill(prefill)
                        .warmup(longest(window, CALIBRATION_WARMUP)).duration(longest(window, CALIBRATION_WINDOW))
                        .build(), null, benchLog, benchLog);
                capacity = closed.targets().get(0).runs().get(0).achievedRate();
                prefill = false;
                if (!(capacity > 0)) {
                    throw new BenchException("the default server answered nothing in a closed-loop run");
                }
            }
            double lo = Math.max(1, Math.round(0.1 * capacity));
            double hi = Math.max(lo + STEPS, Math.round(TOP * capacity));
            SweepOptions sweepOptions = new SweepOptions(lo, hi, (hi - lo) / STEPS, REFINE, options.slo(), false,
                    PAUSE, window.multipliedBy(2));
            BenchResult result = Bench.run(against(server, c).prefill(prefill).warmup(window.dividedBy(2))
                    .duration(window).build(), sweepOptions, benchLog, benchLog);
            sweep = result.targets().get(0).sweep();
            breakdown = sweep.breakdown() == null ? 0 : sweep.breakdown();
        }
        measured.computeIfAbsent(c, k -> new ArrayList<>()).add(new TuneResult.Measurement(stage, breakdown, sweep));
        double took = (System.nanoTime() - t0) / 1e9;
        if (calibrate || done == 0) {
            // What this measurement cost beyond its sweep points (and the closed-loop run, which only the first one
            // has) is what every later one will cost too.
            int points = sweep.points().size();
            double w = window.toMillis() / 1000.0;
            overheadSeconds = Math.max(1, took - (calibrate ? calibrationCost(window) : 0)
                    - points * (1.5 * w + PAUSE.toMillis() / 1000.0));
        }
        done++;
        report(stage, c, breakdown);
    }

    /**
     * On a fresh server: the holds, from the breakdown rate the ranked table shows (the median), when {@code hold};
     * then p99 and server CPU per request at 75% of the rate held (of the breakdown when none was).
     */
    private void holdAndMeasureAt75(Candidate c, Duration window, boolean hold) {
        double breakdown = new TuneResult.Entry(c, measured.get(c), List.of(), -1, -1).breakdown();
        if (breakdown < 1) {
            return;
        }
        Duration warmup = window.dividedBy(2);
        try (ServerHandle server = ServerHandle.open(target(c), baseOptions(c).target(target(c)).build(),
                options.dataDir())) {
            if (options.prefill()) {
                // On its own, so that neither a hold nor the CPU per request below includes it.
                BenchOptions o = against(server, c).prefill(true).build();
                Prefill.run(server, new RequestEncoder(server.url(), o.headers(), o.workload().valueSize().max(),
                        o.seed()), new AtomicLong(), o, benchLog);
            }
            List<SweepOutcome.Point> held = List.of();
            if (hold) {
                // Like a sweep's points: a longer warm-up for a cold server, then the usual half window.
                AtomicInteger run = new AtomicInteger();
                held = TuneHold.stepDown(breakdown, options.slo(),
                        rate -> fixedRate(server, c, rate, run.getAndIncrement() == 0 ? window : warmup,
                                options.hold()),
                        () -> BackgroundWork.awaitQuiet(server, QUIET_LIMIT),
                        () -> secondsLeft() >= holdCost(window) + 1.5 * window.toMillis() / 1000.0);
                holds.put(c, held);
                progress.printf(Locale.ROOT, "%n  hold %s for %s, %s: %s", Units.rate(breakdown),
                        clock(options.hold().toMillis() / 1000.0), c.label(), describe(held));
            }
            TuneResult.Entry entry = new TuneResult.Entry(c, measured.get(c), held, -1, -1);
            double rate = entry.at75Rate();
            if (rate < 1) {
                return;
            }
            BackgroundWork.awaitQuiet(server, QUIET_LIMIT);
            Optional<Duration> before = server.cpuTime();
            RunResult run = fixedRate(server, c, rate, warmup, window);
            Optional<Duration> after = server.cpuTime();
            double cpu = -1;
            if (before.isPresent() && after.isPresent()) {
                // Warm-up and window both ran at this rate; the prefill and the holds came before `before`.
                double requests = rate * (warmup.toMillis() + window.toMillis()) / 1000.0;
                cpu = (after.get().minus(before.get()).toNanos() / 1000.0) / requests;
            }
            at75.put(c, new long[] {run.percentile(99), Math.round(cpu * 1000)});
            progress.printf(Locale.ROOT, "%n  at 75%% of its %s (%s req/s), %s: p99 %s%n",
                    entry.heldRate() > 0 ? "held rate" : "breakdown", Units.rate(rate), c.label(),
                    Units.timeMicros(run.percentile(99)));
        }
    }

    /** One run at {@code rate} on a server already prefilled. */
    private RunResult fixedRate(ServerHandle server, Candidate c, double rate, Duration warmup, Duration window) {
        BenchResult r = Bench.run(against(server, c).rate(rate).prefill(false).warmup(warmup).duration(window)
                .build(), null, benchLog, benchLog);
        return r.targets().get(0).runs().get(0);
    }

    /** {@code 103200 MISS (p99 26.10ms > 10.00ms), 82560 MISS (...), 66048 held (p99 4.10ms)}. */
    private static String describe(List<SweepOutcome.Point> held) {
        List<String> parts = new ArrayList<>();
        for (SweepOutcome.Point p : held) {
            parts.add(Units.rate(p.result().targetRate()) + (p.held() ? " held (p99 "
                    + Units.timeMicros(p.result().percentile(99)) + ")"
                    : " MISS (" + String.join("; ", p.violations()) + ")"));
        }
        return String.join(", ", parts);
    }

    private BenchOptions.Builder baseOptions(Candidate c) {
        return BenchOptions.builder().connections(options.connections()).workload(options.workload())
                .serverCommand(options.serverCommand()).serverCpus(options.serverCpus())
                .commandLine(options.commandLine());
    }

    private BenchOptions.Builder against(ServerHandle server, Candidate c) {
        return baseOptions(c).target(Target.external(c.label(), server.url()).withAdminUrl(server.adminUrl()));
    }

    private Target target(Candidate c) {
        List<String> args = new ArrayList<>(options.serverArgs());
        args.addAll(c.args());
        return new Target(c.isDefault() ? "default" : "candidate", null, args, null, null);
    }

    private void report(String stage, Candidate c, double breakdown) {
        int width = 24;
        int filled = (int) Math.min(width, Math.round(width * Math.min(1.0, done / (double) Math.max(1, planned))));
        double left = Math.max(0, secondsLeft());
        progress.printf(Locale.ROOT, "%n[%s%s] %d/%d, budget left %s · %s %s: breakdown %s req/s",
                "#".repeat(filled), ".".repeat(width - filled), done, planned,
                clock(left), stage, c.label(),
                breakdown > 0 ? Units.rate(breakdown) : "below " + Units.rate(Math.round(0.1 * capacity)));
        progress.flush();
    }

    private TuneResult result(Duration window) {
        List<TuneResult.Entry> entries = new ArrayList<>();
        measured.forEach((c, m) -> {
            long[] a = at75.get(c);
            entries.add(new TuneResult.Entry(c, m, holds.getOrDefault(c, List.of()), a == null ? -1 : a[0],
                    a == null ? -1 : a[1] / 1000.0));
        });
        entries.sort(TuneResult.RANKING);
        TuneResult.Entry base = entries.stream().filter(e -> e.candidate().isDefault()).findFirst().orElseThrow();
        String keep = TuneResult.keepTheDefault(entries.get(0), base);
        if (keep != null) {
            notes.add(keep);
        }
        return new TuneResult(options, started, Duration.ofNanos(System.nanoTime() - startNanos), window, capacity,
                entries, notes);
    }

    /** {@code 9m05s}, {@code 42s}. */
    static String clock(double seconds) {
        long s = Math.round(seconds);
        return s >= 60 ? String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60) : s + "s";
    }

    /** A stream that discards everything, for bench's text when nobody reads it. */
    static PrintStream discard() {
        return new PrintStream(OutputStream.nullOutputStream());
    }
}
