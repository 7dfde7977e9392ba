package dev.larder.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The checks that say when a run's numbers cannot be taken at face value. Each is cheap arithmetic on the merged
 * result; the thresholds are deliberately simple so the warning can say exactly what it compared.
 */
final class Honesty {

    /** Generator lag below this (µs) is never worth a warning. */
    static final long LAG_FLOOR_MICROS = 1_000;
    /** Lag p99 above this share of the corrected p99 means the generator, not the server, shaped the tail. */
    static final double LAG_SHARE = 0.10;

    /**
     * Steal time above this share of the machine's CPU time is worth a warning. Below it the host's share is within
     * what this machine showed on quiet hours (under 1%, session 27).
     */
    static final double STEAL_SHARE = 0.03;

    /**
     * A server busy for more than this share of the CPUs it may run on has nothing left for a burst. In the issue's
     * phase run Larder measured 0.995-0.999 of its one core in every phase and nginx 0.58-0.73 at the same rates
     * (docs/performance.md, "Session 28").
     */
    static final double SERVER_CPU_SHARE = 0.95;
    /**
     * Share of its CPUs above which a fixed-rate window's generator is said to be full. Lower than the server's: a
     * generator that reads answers late adds its own queueing to every latency it records, and in session 43's
     * control runs (nginx at 75% of its closed-loop capacities) its core was 91-95% busy.
     */
    static final double GENERATOR_CPU_SHARE = 0.90;

    private Honesty() {
    }

    /**
     * A warning when the host took more than {@link #STEAL_SHARE} of the machine's CPU time during the window
     * ({@code share} from {@link HostSteal}; NaN, unknown, gives none).
     */
    static Optional<Warning> hostSteal(double share) {
        if (!(share > STEAL_SHARE)) {
            return Optional.empty();
        }
        return Optional.of(new Warning(Warning.Kind.HOST_STEAL, String.format(Locale.ROOT,
                "the host took %.1f%% of this machine's CPU time during the window (steal time in /proc/stat): the "
                        + "server and the generator had that much less than the machine's cores, so rates are lower "
                        + "and tails longer than on a quiet host; compare only with runs measured in the same "
                        + "minutes (a same-run baseline such as nginx's)", 100 * share)));
    }

    /**
     * A warning when a fixed-rate window kept the server's request path busier than {@link #SERVER_CPU_SHARE} of the
     * {@code cpus} it may run on ({@link RunResult#serverForegroundCores}: its lower-priority threads left out, since
     * they take only what the request path leaves; unknown CPU or {@code cpus} 0 gives none, and so does a closed loop,
     * which is meant to fill them).
     */
    static Optional<Warning> serverCpuFull(RunResult r, int cpus) {
        double foreground = r.serverForegroundCores();
        if (r.closedLoop() || cpus <= 0 || !(foreground > SERVER_CPU_SHARE * cpus)) {
            return Optional.empty();
        }
        String background = Double.isNaN(r.serverBackgroundCores()) ? ""
                : String.format(Locale.ROOT, ", not counting the %.1f%% its lower-priority background threads took",
                        100 * r.serverBackgroundCores() / cpus);
        return Optional.of(new Warning(Warning.Kind.SERVER_CPU_FULL, String.format(Locale.ROOT,
                "the server's request path was busy %.1f%% of the time on the %d CPU(s) it may run on%s (%.1fus per "
                        + "answer in all): at this rate it has no CPU to spare, so a burst of background work (a "
                        + "flush, a compaction) or of noise becomes a queue, and the tail measured here is that of a "
                        + "full core rather than of its settings; the rate it can hold is lower",
                100 * foreground / cpus, cpus, background, r.serverMicrosPerRequest())));
    }

    /**
     * A warning when a fixed-rate window kept this generator busier than {@link #GENERATOR_CPU_SHARE} of the CPUs it
     * may run on ({@link RunResult#generatorCpus}; unknown gives none, and so does a closed loop).
     */
    static Optional<Warning> generatorCpuFull(RunResult r) {
        int cpus = r.generatorCpus();
        if (r.closedLoop() || cpus <= 0 || !(r.generatorCores() > GENERATOR_CPU_SHARE * cpus)) {
            return Optional.empty();
        }
        return Optional.of(new Warning(Warning.Kind.GENERATOR_CPU_FULL, String.format(Locale.ROOT,
                "the generator itself was busy %.1f%% of the time on the %d CPU(s) it may run on: answers it reads "
                        + "late and requests it sends late add its own queueing to these latencies; give it more "
                        + "CPUs (-t and taskset) or a lower rate before reading the tail as the server's",
                100 * r.generatorCores() / cpus, cpus)));
    }

    /**
     * {@link #check(RunResult)}, then {@link #hostSteal} for the window's steal share ({@link RunResult#hostSteal})
     * and {@link #serverCpuFull} for the CPUs the server may run on, then {@link #generatorCpuFull}.
     */
    static List<Warning> check(RunResult r, int serverCpus) {
        List<Warning> out = check(r);
        hostSteal(r.hostSteal()).ifPresent(out::add);
        serverCpuFull(r, serverCpus).ifPresent(out::add);
        generatorCpuFull(r).ifPresent(out::add);
        return out;
    }

    static List<Warning> check(RunResult r) {
        List<Warning> out = new ArrayList<>();
        if (r.completed() == 0) {
            out.add(new Warning(Warning.Kind.NO_RESPONSES, "no response arrived in the measured window"));
            return out;
        }
        if (r.closedLoop()) {
            out.add(new Warning(Warning.Kind.CLOSED_LOOP, "closed loop (--rate 0): each connection waits for its "
                    + "answer before sending, so latencies are NOT corrected for coordinated omission; use it to find "
                    + "the maximum throughput, not to judge latency"));
        } else {
            if (r.achievedRatio() < RunResult.ACHIEVED_THRESHOLD) {
                out.add(new Warning(Warning.Kind.RATE_NOT_ACHIEVED, String.format(Locale.ROOT,
                        "achieved %.1f req/s is %.2f%% of the target %s req/s (< %.0f%%): the server did not keep up "
                                + "(%d requests were still due and unsent at the end, %d unanswered)",
                        r.achievedRate(), 100 * r.achievedRatio(), Units.rate(r.targetRate()),
                        100 * RunResult.ACHIEVED_THRESHOLD, r.behindAtEnd(), r.inFlightAtEnd())));
            }
            // More than 1% of the window's requests were already overdue when it opened.
            double expected = r.targetRate() * r.seconds();
            if (r.behindAtStart() > 0.01 * expected) {
                out.add(new Warning(Warning.Kind.WARMUP_BACKLOG, String.format(Locale.ROOT,
                        "%d requests due before the window opened (in the warm-up or the previous phase) were still "
                                + "unsent when it opened (%.1f%% of the window's): the server had not caught up, so "
                                + "the window starts with a backlog; in a single run use a longer --warmup",
                        r.behindAtStart(), 100 * r.behindAtStart() / expected)));
            }
            // Little's law with one request in flight per connection: a connection is busy for the uncorrected
            // latency, so carrying `rate` needs rate × latency connections at that percentile.
            double p99Seconds = r.uncorrected().getValueAtPercentile(99) / 1e6;
            double needed = r.targetRate() * p99Seconds;
            if (r.connections() < needed) {
                out.add(new Warning(Warning.Kind.TOO_FEW_CONNECTIONS, String.format(Locale.ROOT,
                        "%d connections < rate %s/s x p99 %s = %.0f: with one request in flight per connection the "
                                + "schedule cannot be kept; use --connections >= %d, or the server is overloaded",
                        r.connections(), Units.rate(r.targetRate()),
                        Units.timeMicros(r.uncorrected().getValueAtPercentile(99)), needed,
                        (long) Math.ceil(needed * 2))));
            }
            long lagP99 = r.lag().getTotalCount() == 0 ? 0 : r.lag().getValueAtPercentile(99);
            long correctedP99 = r.corrected().getValueAtPercentile(99);
            if (lagP99 >= LAG_FLOOR_MICROS && lagP99 >= LAG_SHARE * correctedP99) {
                out.add(new Warning(Warning.Kind.GENERATOR_LAG, String.format(Locale.ROOT,
                        "the generator itself fell behind: its send lag p99 %s is %.0f%% of the corrected p99 %s "
                                + "(lag %s); add --threads, pin it on its own core, or lower the rate",
                        Units.timeMicros(lagP99), 100.0 * lagP99 / Math.max(1, correctedP99),
                        Units.timeMicros(correctedP99), r.lagSummary())));
            }
        }
        if (r.errors().total() > 0) {
            out.add(new Warning(Warning.Kind.SOCKET_ERRORS, String.format(Locale.ROOT,
                    "%d socket errors (connect %d, read %d, write %d, timeout %d): those requests are missing from "
                            + "the latencies", r.errors().total(), r.errors().connect(), r.errors().read(),
                    r.errors().write(), r.errors().timeout())));
        }
        return out;
    }
}
