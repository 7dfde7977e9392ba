package dev.larder.bench;

import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code larder bench tail}: warm-up, closed-loop capacity of PUT and GET, then the phases (default PUT, GET, MIX,
 * PUT, GET) at a fraction of each op's capacity, all in one generator session on the same connections so the latency
 * over time is continuous across the switches; optionally the sustainable rate of PUT and GET, and the same phases
 * at the same rates against nginx for the HTTP ceiling.
 */
public final class TailBench {

    /** One stretch of a session. */
    private record Step(String name, TailPhase kind, double rate, Duration duration, boolean measured) {
    }

    private final BenchOptions options;
    private final TailOptions tail;
    private final PrintStream out;
    private final AtomicLong putCursor = new AtomicLong();
    private Zipfian zipfian;
    private int sessions;

    private TailBench(BenchOptions options, TailOptions tail, PrintStream out) {
        this.options = options;
        this.tail = tail;
        this.out = out;
    }

    /**
     * Runs it against {@code options}' first target and writes the outputs asked for. Text goes to {@code out}
     * (with {@code --json -} the JSON goes there and the text to {@code err}).
     */
    public static TailResult run(BenchOptions options, TailOptions tail, PrintStream out, PrintStream err) {
        PrintStream text = options.jsonToStdout() ? err : out;
        TailResult result = new TailBench(options, tail, text).runAll();
        TailOutputs.write(result, text, out);
        return result;
    }

    private TailResult runAll() {
        Instant started = Instant.now();
        Target target = options.targets().get(0);
        out.println("Tail benchmark @ " + (target.url() != null ? target.url() : target.label()) + ", SLO "
                + tail.slo().describe());
        out.printf(Locale.ROOT, "  %d connections, %d thread(s), %s values, load %.0f%% of each op's capacity, "
                        + "phases of %s%n", options.connections(), options.threads(), options.workload().valueSize(),
                100 * tail.load(), Units.shortTime(tail.phaseDuration().toNanos() / 1000.0));
        try (ServerHandle server = ServerHandle.open(target, options)) {
            for (String s : server.settings()) {
                out.println("  server: " + s);
            }
            RequestEncoder encoder = new RequestEncoder(server.url(), options.headers(),
                    options.workload().valueSize().max(), options.seed());
            String prefill = options.prefill() ? Prefill.run(server, encoder, putCursor, options, out) : null;
            RunResult warmup = null;
            if (!tail.warmup().isZero()) {
                warmup = closedLoop(server.url(), server.label(), encoder, putCursor, TailPhase.PUT, tail.warmup());
                out.printf(Locale.ROOT, "  warm-up: PUT closed loop %s: %d answers (%.0f req/s)%n",
                        Units.shortTime(tail.warmup().toNanos() / 1000.0), warmup.completed(), warmup.achievedRate());
            }
            RunResult putCapacity = capacity(server.url(), server.label(), encoder, TailPhase.PUT);
            RunResult getCapacity = capacity(server.url(), server.label(), encoder, TailPhase.GET);
            double[] capacities = {putCapacity.achievedRate(), getCapacity.achievedRate()};
            List<Step> steps = phaseSteps(capacities);
            out.println("  phases: " + describe(steps) + " (one session, same connections)");
            List<RunResult> larder = session(server.url(), server.label(), encoder, putCursor, steps);
            List<TailResult.SustainableResult> sustainable = new ArrayList<>();
            if (tail.sustainable()) {
                for (TailPhase op : List.of(TailPhase.PUT, TailPhase.GET)) {
                    sustainable.add(sustainable(server, encoder, op, capacities));
                }
            }
            List<RunResult> nginx = null;
            RunResult nginxCapacity = null;
            if (tail.nginx() != null) {
                RequestEncoder nginxEncoder = new RequestEncoder(tail.nginx(), options.headers(),
                        options.workload().valueSize().max(), options.seed());
                AtomicLong nginxCursor = new AtomicLong(putCursor.get());
                out.println("  nginx " + tail.nginx() + ": the same phases at the same rates ...");
                nginx = session(tail.nginx(), "nginx", nginxEncoder, nginxCursor, steps);
                if (tail.sustainable()) {
                    nginxCapacity = closedLoop(tail.nginx(), "nginx", nginxEncoder, nginxCursor, TailPhase.GET,
                            tail.capacityDuration());
                    out.printf(Locale.ROOT, "  nginx capacity (closed loop): %.0f req/s%n",
                            nginxCapacity.achievedRate());
                }
            }
            List<TailResult.PhaseResult> phases = new ArrayList<>();
            double at = 0;
            for (int i = 0; i < steps.size(); i++) {
                Step s = steps.get(i);
                phases.add(new TailResult.PhaseResult(s.kind(), s.rate(), at, larder.get(i),
                        nginx == null ? null : nginx.get(i)));
                at += s.duration().toNanos() / 1e9;
            }
            return new TailResult(options, tail, started, Bench.machine(), server.label(), server.url(),
                    server.settings(), prefill, warmup, putCapacity, getCapacity, phases, sustainable, nginxCapacity);
        }
    }

    private RunResult capacity(URI url, String label, RequestEncoder encoder, TailPhase op) {
        RunResult r = closedLoop(url, label, encoder, putCursor, op, tail.capacityDuration());
        if (r.completed() == 0) {
            throw new BenchException("capacity of " + op + " is 0: " + label + " answered nothing in "
                    + Units.shortTime(tail.capacityDuration().toNanos() / 1000.0));
        }
        out.printf(Locale.ROOT, "  capacity %s (closed loop): %.0f req/s, status %s%n", op, r.achievedRate(),
                r.statusCounts());
        return r;
    }

    private List<Step> phaseSteps(double[] capacities) {
        List<Step> steps = new ArrayList<>();
        for (TailPhase kind : tail.phases()) {
            steps.add(new Step(kind.name(), kind, Math.round(tail.load() * capacity(kind, capacities)),
                    tail.phaseDuration(), true));
        }
        return steps;
    }

    /**
     * An op's saturated rate; for the mix, the rate at which its requests would fill the server if each cost what
     * it costs alone (1 / capacity): the weighted harmonic mean of the capacities.
     */
    double capacity(TailPhase kind, double[] capacities) {
        return switch (kind) {
            case PUT -> capacities[0];
            case GET -> capacities[1];
            case MIX -> {
                double total = 0;
                double seconds = 0;
                for (Workload.Weighted w : tail.mix()) {
                    total += w.weight();
                    seconds += w.weight() / capacities[w.operation() == Operation.PUT ? 0 : 1];
                }
                yield total / seconds;
            }
        };
    }

    // Bisection between 0 and the capacity: each trial is a write phase, then the op held at the trial rate.
    private TailResult.SustainableResult sustainable(ServerHandle server, RequestEncoder encoder, TailPhase op,
                                                     double[] capacities) {
        double capacity = capacity(op, capacities);
        double lo = 0;
        double hi = capacity;
        List<SweepOutcome.Point> trials = new ArrayList<>();
        Step write = new Step("write", TailPhase.PUT, Math.round(tail.load() * capacities[0]), tail.phaseDuration(),
                true);
        for (int i = 0; i < tail.bisectSteps(); i++) {
            double rate = Math.round((lo + hi) / 2);
            Step hold = new Step("hold " + op, op, rate, tail.hold(), true);
            RunResult r = session(server.url(), server.label(), encoder, putCursor, List.of(write, hold)).get(1);
            SweepOutcome.Point p = new SweepOutcome.Point(r, tail.slo().violations(r));
            trials.add(p);
            out.printf(Locale.ROOT, "  sustainable %s: %s req/s after a write phase: p99 %s  %s%n", op,
                    Units.rate(rate), Units.timeMicros(r.percentile(99)),
                    p.held() ? "held" : "MISS (" + String.join("; ", p.violations()) + ")");
            if (p.held()) {
                lo = rate;
            } else {
                hi = rate;
            }
        }
        return new TailResult.SustainableResult(op, capacity, lo, capacity / Math.pow(2, tail.bisectSteps()), trials);
    }

    private RunResult closedLoop(URI url, String label, RequestEncoder encoder, AtomicLong cursor, TailPhase op,
                                 Duration duration) {
        return session(url, label, encoder, cursor, List.of(new Step(op.name(), op, 0, duration, true))).get(0);
    }

    /** Runs the steps one after another on one set of connections; one result per measured step. */
    private List<RunResult> session(URI url, String label, RequestEncoder encoder, AtomicLong cursor,
                                    List<Step> steps) {
        if (zipfian == null && options.workload().distribution() == KeyDistribution.ZIPFIAN) {
            zipfian = new Zipfian(options.workload().keys(), Zipfian.THETA);
        }
        long seed = options.seed() * 31 + 100_000L * sessions++;
        List<LoadGenerator.Phase> phases = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            Workload w = workload(s.kind());
            long phaseSeed = seed + 1000L * i;
            Zipfian z = zipfian;
            phases.add(new LoadGenerator.Phase(s.name(), s.rate(), s.duration(), s.measured(),
                    t -> encoder.workload(w, z, cursor, phaseSeed + t)));
        }
        LoadGenerator.Plan plan = new LoadGenerator.Plan(url, options.connections(), options.threads(),
                options.timeout(), tail.slo().thresholdMicros(), phases);
        LoadGenerator.Outcome outcome = LoadGenerator.run(plan, null);
        List<RunResult> results = new ArrayList<>();
        int w = 0;
        for (Step s : steps) {
            if (s.measured()) {
                results.add(RunResult.merge(label, url, workload(s.kind()).describe(), s.rate(),
                        options.connections(), outcome.windows().get(w++), List.of()));
            }
        }
        return results;
    }

    // Reads go to keys that exist: uniform over the ids written so far unless zipfian over --keys was asked for.
    private Workload workload(TailPhase kind) {
        Workload base = options.workload();
        KeyDistribution reads = base.distribution() == KeyDistribution.UNIFORM ? KeyDistribution.WRITTEN
                : base.distribution();
        List<Workload.Weighted> mix = switch (kind) {
            case PUT -> List.of(new Workload.Weighted(Operation.PUT, 1));
            case GET -> List.of(new Workload.Weighted(Operation.GET, 1));
            case MIX -> tail.mix();
        };
        return new Workload(mix, base.keys(), reads, base.randomPutIds(), base.valueSize());
    }

    private static String describe(List<Step> steps) {
        StringBuilder sb = new StringBuilder();
        for (Step s : steps) {
            sb.append(sb.length() > 0 ? " -> " : "").append(s.name()).append(' ').append(Units.rate(s.rate()));
        }
        return sb.toString();
    }
}
