package dev.larder.bench;

import java.io.PrintStream;
import java.net.URI;
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

    /** Long enough for the compactions a phase run leaves (seconds at nice 19 on an idle core), short if stuck. */
    private static final java.time.Duration QUIET_LIMIT = java.time.Duration.ofSeconds(60);
    /** Open loop before the first measured phase, long enough for C2 to recompile the generator's paths. */
    static final java.time.Duration LEAD_IN = java.time.Duration.ofSeconds(3);

    private final BenchOptions options;
    private final TailOptions tail;
    private final PrintStream out;
    private final TailSession session;
    private final AtomicLong putCursor = new AtomicLong();

    private TailBench(BenchOptions options, TailOptions tail, PrintStream out) {
        this.options = options;
        this.tail = tail;
        this.out = out;
        this.session = new TailSession(options, tail);
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
                warmup = session.closedLoop(server.url(), server.label(), encoder, putCursor, TailPhase.PUT,
                        tail.warmup());
                out.printf(Locale.ROOT, "  warm-up: PUT closed loop %s: %d answers (%.0f req/s)%n",
                        Units.shortTime(tail.warmup().toNanos() / 1000.0), warmup.completed(), warmup.achievedRate());
            }
            RequestEncoder nginxEncoder = tail.nginx() == null ? null : new RequestEncoder(tail.nginx(),
                    options.headers(), options.workload().valueSize().max(), options.seed());
            AtomicLong nginxCursor = new AtomicLong();
            double speedBefore = tail.speedProbe().isZero() ? Double.NaN
                    : speed(nginxEncoder, nginxCursor, "before the capacity runs");
            RunResult putCapacity = capacity(server.url(), server.label(), encoder, TailPhase.PUT);
            RunResult getCapacity = capacity(server.url(), server.label(), encoder, TailPhase.GET);
            double[] capacities = {putCapacity.achievedRate(), getCapacity.achievedRate()};
            List<TailSession.Step> steps = phaseSteps(capacities, tail::rate);
            List<TailSession.Step> withLeadIn = withLeadIn(steps);
            out.println("  phases: " + describe(steps) + " (one session, same connections, after an unmeasured "
                    + Units.shortTime(LEAD_IN.toNanos() / 1000.0) + " lead-in at the first phase's rate)");
            TailSession.Measured measured;
            BoundaryCounters.Spans counted;
            try (BoundaryCounters counters = BoundaryCounters.of(server.adminUrl(), BoundaryCounters.TAIL)) {
                measured = session.runPhases(server.url(), server.label(), encoder, putCursor, withLeadIn,
                        from -> counters.readAt(boundaries(from, steps)));
                counted = counters.between();
            }
            List<RunResult> larder = measured.results();
            Instant phasesStarted = measured.measuredFrom();
            double speedAfterPhases = Double.NaN;
            if (!tail.speedProbe().isZero()) {
                awaitCompactions(server, "machine speed", out);
                speedAfterPhases = speed(nginxEncoder, nginxCursor, "after the phases");
            }
            List<TailResult.SustainableResult> sustainable = new ArrayList<>();
            if (tail.sustainable()) {
                // GET first: a PUT search's holds add 30-45 M keys, and a GET search after it ran on ten times the
                // data its capacity was measured on, most of it never read and so not in the block cache: GETs at
                // half the capacity missed the cache 38-66k times a second (docs/performance.md, session 31). A GET
                // search's own write phases add 3 M keys each at 100k/s, as the phases' writes do.
                for (TailPhase op : tail.sustainableOps()) {
                    sustainable.add(SustainableSearch.find(session, tail, server.url(), server.label(), encoder,
                            putCursor, op, capacity(op, capacities), capacities[0], () -> awaitCompactions(server,
                                    "sustainable trial", out), out));
                }
            }
            List<RunResult> nginx = null;
            MachineSpeed machineSpeed = null;
            RunResult nginxCapacity = null;
            TailResult.OwnLoad nginxOwnLoad = null;
            List<TailResult.SustainableResult> nginxSustainable = List.of();
            if (tail.nginx() != null) {
                nginxCursor.set(putCursor.get());
                awaitCompactions(server, "nginx", out);
                out.println("  nginx " + tail.nginx() + ": the same phases at the same rates ...");
                nginx = session.run(tail.nginx(), "nginx", nginxEncoder, nginxCursor, withLeadIn);
                if (!tail.speedProbe().isZero()) {
                    machineSpeed = new MachineSpeed(tail.speedProbe(), speedBefore, speedAfterPhases,
                            speed(nginxEncoder, nginxCursor, "after nginx's phases"));
                }
                if (tail.sustainable()) {
                    nginxCapacity = session.closedLoop(tail.nginx(), "nginx", nginxEncoder, nginxCursor,
                            TailPhase.GET, tail.capacityDuration());
                    out.printf(Locale.ROOT, "  nginx capacity (closed loop): %.0f req/s%n",
                            nginxCapacity.achievedRate());
                }
                if (tail.nginxSustainable()) {
                    nginxSustainable = nginxSustainable(tail.nginx(), nginxEncoder, nginxCursor,
                            nginxCapacity.achievedRate(), capacities[0]);
                }
                if (tail.nginxOwnLoad()) {
                    nginxOwnLoad = ownLoad(tail.nginx(), nginxEncoder, nginxCursor);
                }
            }
            List<TailResult.PhaseResult> phases = new ArrayList<>();
            double at = 0;
            for (int i = 0; i < steps.size(); i++) {
                TailSession.Step s = steps.get(i);
                phases.add(new TailResult.PhaseResult(s.kind(), s.rate(), at, larder.get(i),
                        nginx == null ? null : nginx.get(i), counted.of(BoundaryCounters.WRITE_STALL_SECONDS, i),
                        counted.of(BoundaryCounters.COALESCE_SPIN_SECONDS, i)));
                at += s.duration().toNanos() / 1e9;
            }
            return new TailResult(options, tail, started, phasesStarted, Bench.machine(), server.label(), server.url(),
                    server.settings(), prefill, warmup, putCapacity, getCapacity, phases, sustainable, nginxCapacity,
                    nginxOwnLoad, nginxSustainable, machineSpeed);
        }
    }

    /** When each of {@code steps} starts, the first at {@code from}, and when the last ends. */
    static List<Instant> boundaries(Instant from, List<TailSession.Step> steps) {
        List<Instant> at = new ArrayList<>();
        at.add(from);
        for (TailSession.Step s : steps) {
            from = from.plus(s.duration());
            at.add(from);
        }
        return at;
    }

    /** One reading of {@link MachineSpeed}: nginx's closed-loop GET rate for {@code --speed-probe}, printed. */
    private double speed(RequestEncoder nginxEncoder, AtomicLong nginxCursor, String when) {
        RunResult r = session.closedLoop(tail.nginx(), "nginx", nginxEncoder, nginxCursor, TailPhase.GET,
                tail.speedProbe());
        if (r.completed() == 0) {
            throw new BenchException("machine speed " + when + ": nginx at " + tail.nginx() + " answered nothing in "
                    + Units.shortTime(tail.speedProbe().toNanos() / 1000.0));
        }
        out.printf(Locale.ROOT, "  machine speed %s: nginx closed-loop GET %.0f req/s%n", when, r.achievedRate());
        return r.achievedRate();
    }

    /**
     * Waits (up to a minute) until the server has no compaction running or pending, when it exposes those metrics,
     * and says how long it waited.
     */
    private static void awaitCompactions(ServerHandle server, String before, PrintStream out) {
        BackgroundWork.awaitQuiet(server, QUIET_LIMIT).ifPresent(waited ->
                out.printf(Locale.ROOT, "  %s: waited %.1f s for the server's compactions to finish first%n", before,
                        waited.toMillis() / 1000.0));
    }

    /**
     * The control for the breakdown target: the same sustainable search against nginx, of the same ops, each bisected
     * between 0 and nginx's own closed-loop capacity of that op, every trial after the same write phase as the
     * server's (PUT at {@code --load} of the server's PUT capacity). On this 2-core machine the generator and the
     * host's wake-ups limit what any server holds for a minute: nginx {@code return 200} held 60.8k GET/s (0.66x its
     * saturated rate) and 49.1k PUT/s (0.53x) in one search (docs/performance.md, session 47), so a ratio to nginx's
     * saturated rate means little without nginx's own ratio beside it.
     */
    private List<TailResult.SustainableResult> nginxSustainable(URI nginx, RequestEncoder encoder, AtomicLong cursor,
                                                                double getCapacity, double serverPutCapacity) {
        RunResult put = tail.sustainableOps().contains(TailPhase.PUT)
                ? capacityOf(nginx, "nginx", encoder, cursor, TailPhase.PUT, "nginx ") : null;
        out.println("  nginx " + nginx + ": the same sustainable search, after the same write phases ...");
        List<TailResult.SustainableResult> found = new ArrayList<>();
        for (TailPhase op : tail.sustainableOps()) {
            found.add(SustainableSearch.find(session, tail, nginx, "nginx", encoder, cursor, op,
                    op == TailPhase.GET ? getCapacity : put.achievedRate(), serverPutCapacity, () -> { }, out));
        }
        return found;
    }

    /**
     * The control for the phase targets: nginx's own closed-loop capacities, then the same phases at the same fraction
     * of those ({@code --load}, even where {@code --rates} fixed the measured server's). On this 2-core machine nginx
     * {@code return 200} itself held a 10 ms p99 in only 5 of 25 phases at 75% of its own capacities: a request at a
     * fixed rate costs more than at saturation (fewer requests share a wake-up; nginx 1.09-1.25 times, Larder
     * 1.3-1.4 times), and it does for the generator too, whose core was 91-95% busy there. This tells a phase that
     * this machine and generator miss at that load whatever the server from one that is the measured server's own
     * (docs/performance.md, "Session 43").
     */
    private TailResult.OwnLoad ownLoad(URI nginx, RequestEncoder encoder, AtomicLong cursor) {
        RunResult put = capacityOf(nginx, "nginx", encoder, cursor, TailPhase.PUT, "nginx ");
        RunResult get = capacityOf(nginx, "nginx", encoder, cursor, TailPhase.GET, "nginx ");
        List<TailSession.Step> steps = phaseSteps(new double[] {put.achievedRate(), get.achievedRate()},
                (kind, capacity) -> tail.loadRate(capacity));
        out.printf(Locale.ROOT, "  nginx at %.0f%% of its own capacity: %s ...%n", 100 * tail.load(),
                describe(steps));
        List<RunResult> results = session.run(nginx, "nginx", encoder, cursor, withLeadIn(steps));
        List<TailResult.OwnLoadPhase> phases = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            phases.add(new TailResult.OwnLoadPhase(steps.get(i).kind(), steps.get(i).rate(), results.get(i)));
        }
        return new TailResult.OwnLoad(put, get, phases);
    }

    private RunResult capacity(URI url, String label, RequestEncoder encoder, TailPhase op) {
        return capacityOf(url, label, encoder, putCursor, op, "");
    }

    /** {@code who}: what the printed line starts with, empty for the measured server. */
    private RunResult capacityOf(URI url, String label, RequestEncoder encoder, AtomicLong cursor, TailPhase op,
                                 String who) {
        RunResult r = session.closedLoop(url, label, encoder, cursor, op, tail.capacityDuration());
        if (r.completed() == 0) {
            throw new BenchException("capacity of " + op + " is 0: " + label + " answered nothing in "
                    + Units.shortTime(tail.capacityDuration().toNanos() / 1000.0));
        }
        out.printf(Locale.ROOT, "  %scapacity %s (closed loop): %.0f req/s, status %s%s%n",
                who, op, r.achievedRate(), r.statusCounts(), Double.isNaN(r.serverMicrosPerRequest()) ? ""
                        : String.format(Locale.ROOT, ", %.1f us CPU per answer", r.serverMicrosPerRequest()));
        return r;
    }

    /**
     * The phases behind an unmeasured {@link #LEAD_IN} of the first phase's kind and rate on the same connections.
     * The load generator's own code is compiled during the closed-loop warm-up and capacity runs; its first
     * scheduled requests took the open-loop branches, and C2 threw away the compiled send, receive and recording
     * path: against nginx {@code return 200} the first second of the first phase had a p99 of 29-55 ms, every later
     * second 0.2-5 ms (docs/performance.md, session 16). The lead-in pays for that where nothing is measured.
     */
    private static List<TailSession.Step> withLeadIn(List<TailSession.Step> steps) {
        TailSession.Step first = steps.get(0);
        List<TailSession.Step> all = new ArrayList<>();
        all.add(new TailSession.Step("lead-in", first.kind(), first.rate(), LEAD_IN, false));
        all.addAll(steps);
        return all;
    }

    /** The phases at the rate {@code rate} gives each kind for its op's capacity (PUT, GET in {@code capacities}). */
    private List<TailSession.Step> phaseSteps(double[] capacities, PhaseRate rate) {
        List<TailSession.Step> steps = new ArrayList<>();
        for (TailPhase kind : tail.phases()) {
            steps.add(new TailSession.Step(kind.name(), kind, rate.of(kind, capacity(kind, capacities)),
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
            case MIX -> 1 / tail.mixMean(1 / capacities[0], 1 / capacities[1]);
        };
    }

    /** A phase's rate (req/s) from its kind and its op's capacity. */
    @FunctionalInterface
    private interface PhaseRate {
        long of(TailPhase kind, double capacity);
    }

    private static String describe(List<TailSession.Step> steps) {
        StringBuilder sb = new StringBuilder();
        for (TailSession.Step s : steps) {
            sb.append(sb.length() > 0 ? " -> " : "").append(s.name()).append(' ').append(Units.rate(s.rate()));
        }
        return sb.toString();
    }
}
