package dev.larder.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The text summary of a tail run: the phase table beside nginx (with each server's CPU per answer when its processes
 * can be read, {@link ProcessCpuTime}), the sustainable rates, the warnings.
 */
final class TailText {

    private TailText() {
    }

    static void print(PrintStream out, TailResult r) {
        TailOptions tail = r.tail();
        long bound = tail.slo().thresholdMicros();
        String b = Units.timeMicros(bound);
        out.println();
        out.printf(Locale.ROOT, "  Phases of %s (SLO %s). s>SLO: seconds with p99 > %s; stolen: of those, seconds in "
                + "which the host took more than %.0f%% of the server's CPU; recover: seconds after the switch until the "
                + "first second with p99 <= %s; cost: answers > %s in the first %s after the switch / rate, in "
                + "seconds of requests%n", r.label(), tail.slo().describe(), b, Timeline.STOLEN_SHARE * 100, b, b,
                Units.shortTime(tail.switchWindow().toNanos() / 1000.0));
        out.printf("  %2s %-4s %9s %10s %9s %9s %9s %9s %6s %6s %8s %8s %10s %7s %8s %6s %8s %13s%n", "#", "op",
                "rate", "achieved", "p50", "p99", "p99.9", "max", "s>SLO", "stolen", "recover", "cost(s)", "nginx p99",
                "ratio", "cpu/req", "x sat", "bg cores", "nginx cpu/req");
        int i = 1;
        for (TailResult.PhaseResult p : r.phases()) {
            RunResult l = p.larder();
            int recover = p.recoverySeconds(bound);
            out.printf(Locale.ROOT,
                    "  %2d %-4s %9s %10.1f %9s %9s %9s %9s %6d %6s %8s %8.3f %10s %7s %8s %6s %8s %13s%n",
                    i++,
                    p.kind(),
                    Units.rate(p.rate()), l.achievedRate(), Units.timeMicros(l.percentile(50)),
                    Units.timeMicros(l.percentile(99)), Units.timeMicros(l.percentile(99.9)),
                    Units.timeMicros(l.corrected().getMaxValue()), p.secondsAbove(bound),
                    p.secondsAboveStolenText(bound), recover < 0 ? "never" : recover + "s",
                    p.switchCostSeconds(tail.switchWindow()),
                    p.nginx() == null ? "-" : Units.timeMicros(p.nginx().percentile(99)),
                    p.nginx() == null ? "-" : p.p99RatioText(), Units.cpuPerAnswer(p.serverMicrosPerRequest(), "-"),
                    r.costOverSaturatedText(p),
                    Double.isNaN(l.serverBackgroundCores()) ? "-"
                            : String.format(Locale.ROOT, "%.2f", l.serverBackgroundCores()),
                    p.nginx() == null ? "-" : Units.cpuPerAnswer(p.nginx().serverMicrosPerRequest(), "-"));
        }
        printCostOverSaturated(out, r);
        printSpin(out, r);
        printWriteStalls(out, r);
        if (r.machineSpeed() != null) {
            out.println("  Machine speed: " + r.machineSpeed().describe());
        }
        printWorstSeconds(out, r, bound);
        if (r.nginxOwnLoad() != null) {
            printOwnLoad(out, r, bound);
        }
        if (!r.sustainable().isEmpty()) {
            out.println();
            out.printf("  Sustainable rate: the highest rate held for %s right after a write phase with %s "
                            + "(bisection between 0 and the capacity, %d steps)%n",
                    Units.shortTime(tail.hold().toNanos() / 1000.0), tail.slo().describe(), tail.bisectSteps());
            for (TailResult.SustainableResult s : r.sustainable()) {
                out.printf(Locale.ROOT, "  %-4s sustainable %s req/s (resolution %s), saturated %.0f req/s: %.2f x "
                                + "saturated%s%n", s.op(), s.rateText(), s.resolutionText(),
                        s.capacity(), s.rate() / s.capacity(),
                        r.nginxCapacity() == null ? "" : String.format(Locale.ROOT,
                                ", %.2f x nginx's saturated %.0f req/s", s.rate() / r.nginxCapacity().achievedRate(),
                                r.nginxCapacity().achievedRate()) + nginxSustainableRatio(r, s));
            }
            for (TailResult.SustainableResult n : r.nginxSustainable()) {
                out.printf(Locale.ROOT, "  nginx %-4s sustainable %s req/s (resolution %s), its saturated %.0f req/s: "
                                + "%.2f x saturated (the same search: what this machine and generator hold for a "
                                + "server that does no work)%n", n.op(), n.rateText(),
                        n.resolutionText(), n.capacity(), n.rate() / n.capacity());
            }
        }
        for (Warning w : r.machineSpeedWarnings()) {
            out.println("  WARNING (machine speed): " + w.message());
        }
        i = 1;
        for (TailResult.PhaseResult p : r.phases()) {
            for (Warning w : p.larder().warnings()) {
                out.println("  WARNING (phase " + i + " " + p.kind() + "): " + w.message());
            }
            if (p.nginx() != null) {
                for (Warning w : p.nginx().warnings()) {
                    out.println("  WARNING (nginx, phase " + i + " " + p.kind() + "): " + w.message());
                }
            }
            i++;
        }
        if (r.nginxOwnLoad() != null) {
            i = 1;
            for (TailResult.OwnLoadPhase p : r.nginxOwnLoad().phases()) {
                for (Warning w : p.result().warnings()) {
                    out.println("  WARNING (nginx at its own load, phase " + i + " " + p.kind() + "): " + w.message());
                }
                i++;
            }
        }
        out.println();
    }

    /**
     * Each phase's worst seconds above the SLO with what the machine did in them: a full core, the background, or
     * the host taking the CPU tells a queue from a stall (session 62 needed a sampler beside the benchmark for this).
     */
    private static void printWorstSeconds(PrintStream out, TailResult r, long bound) {
        boolean header = false;
        int i = 1;
        for (TailResult.PhaseResult p : r.phases()) {
            List<String> worst = p.larder().timeline().worstSecondsText(Timeline.WORST_SECONDS, bound);
            if (!worst.isEmpty()) {
                if (!header) {
                    out.printf("  Worst seconds above %s, with the server's CPU and the host's steal in them:%n",
                            Units.timeMicros(bound));
                    header = true;
                }
                out.printf(Locale.ROOT, "  %2d %-4s %s%n", i, p.kind(), String.join(", ", worst));
            }
            i++;
        }
    }

    /**
     * Why a phase at a fraction of capacity can still fill the server: the range of the phases' "x sat" and the cores
     * their request path kept busy. Nothing when the server's CPU could not be read.
     */
    private static void printCostOverSaturated(PrintStream out, TailResult r) {
        double lowRatio = Double.POSITIVE_INFINITY;
        double highRatio = Double.NEGATIVE_INFINITY;
        double lowCores = Double.POSITIVE_INFINITY;
        double highCores = Double.NEGATIVE_INFINITY;
        for (TailResult.PhaseResult p : r.phases()) {
            double ratio = r.costOverSaturated(p);
            if (!Double.isNaN(ratio)) {
                lowRatio = Math.min(lowRatio, ratio);
                highRatio = Math.max(highRatio, ratio);
                lowCores = Math.min(lowCores, p.requestPathCores());
                highCores = Math.max(highCores, p.requestPathCores());
            }
        }
        if (lowRatio > highRatio) {
            return;
        }
        out.printf(Locale.ROOT, "  x sat: CPU per answer at the phase's fixed rate over CPU per answer at saturation "
                        + "(the capacity runs above): %.2f-%.2fx here, so the phases kept %.2f-%.2f cores of the "
                        + "server's request path busy (lower-priority background threads not counted)%n", lowRatio,
                highRatio, lowCores, highCores);
    }

    /**
     * How much of the server's CPU was its loops spinning through coalescing windows ({@code --io-coalesce-wait
     * spin}), which cpu/req and x sat leave out; nothing when no phase spun.
     */
    static void printSpin(PrintStream out, TailResult r) {
        if (r.phases().stream().anyMatch(p -> p.spinCores() > 0)) {
            out.println("  the event loops spun through their coalescing windows ("
                    + BoundaryCounters.COALESCE_SPIN_SECONDS + ", read at each phase boundary), cores: "
                    + perPhase(r, TailResult.PhaseResult::spinCores, "") + "; cpu/req and x sat leave it out");
        }
    }

    /** Each phase's {@code value} as {@code 1 PUT 0.84<unit>, 2 GET 0.00<unit>}; phases where it is NaN left out. */
    private static String perPhase(TailResult r, ToDoubleFunction<TailResult.PhaseResult> value, String unit) {
        StringBuilder line = new StringBuilder();
        int i = 1;
        for (TailResult.PhaseResult p : r.phases()) {
            double v = value.applyAsDouble(p);
            if (!Double.isNaN(v)) {
                line.append(line.length() == 0 ? "" : ", ")
                        .append(String.format(Locale.ROOT, "%d %s %.2f%s", i, p.kind(), v, unit));
            }
            i++;
        }
        return line.toString();
    }

    /**
     * How long RocksDB held writes back in each phase, when the server said ({@link BoundaryCounters}); with the cause
     * and the flag that moves it when any phase had a stall.
     */
    static void printWriteStalls(PrintStream out, TailResult r) {
        String line = perPhase(r, TailResult.PhaseResult::writeStallSeconds, " s");
        if (line.isEmpty()) {
            return;
        }
        out.println("  RocksDB write stalls (" + BoundaryCounters.WRITE_STALL_SECONDS
                + ", read at each phase boundary): " + line);
        if (r.phases().stream().anyMatch(p -> p.writeStallSeconds() > 0)) {
            out.println("  RocksDB slowed or stopped writes: its memtables or level-0 files filled faster than the "
                    + "background flushed or compacted them; a stop holds every write until a flush ends. Its LOG in "
                    + "the data directory names which (\"Stopping writes because ...\"); more memtables "
                    + "(--memtables) give a flush more time");
        }
    }

    /** The control: nginx at the same fraction of its own capacities, and how many phases each held. */
    private static void printOwnLoad(PrintStream out, TailResult r, long bound) {
        TailResult.OwnLoad own = r.nginxOwnLoad();
        out.println();
        out.printf(Locale.ROOT, "  Control: nginx at %.0f%% of its own capacity (closed loop: PUT %.0f, GET %.0f req/s)"
                        + "%n", 100 * r.tail().load(), own.putCapacity().achievedRate(),
                own.getCapacity().achievedRate());
        out.printf("  %2s %-4s %9s %10s %9s %9s %9s %9s %6s %8s%n", "#", "op", "rate", "achieved", "p50", "p99",
                "p99.9", "max", "s>SLO", "cpu/req");
        int i = 1;
        for (TailResult.OwnLoadPhase p : own.phases()) {
            RunResult n = p.result();
            out.printf(Locale.ROOT, "  %2d %-4s %9s %10.1f %9s %9s %9s %9s %6d %8s%n", i++, p.kind(),
                    Units.rate(p.rate()), n.achievedRate(), Units.timeMicros(n.percentile(50)),
                    Units.timeMicros(n.percentile(99)), Units.timeMicros(n.percentile(99.9)),
                    Units.timeMicros(n.corrected().getMaxValue()), p.secondsAbove(bound),
                    Units.cpuPerAnswer(n.serverMicrosPerRequest(), "-"));
        }
        out.printf(Locale.ROOT, "  phases with p99 <= %s: %s %d of %d at %.0f%% of its capacity, nginx %d of %d at "
                        + "%.0f%% of its own%n", Units.timeMicros(bound), r.label(), r.phasesWithin(bound),
                r.phases().size(), 100 * r.tail().load(), own.phasesWithin(bound), own.phases().size(),
                100 * r.tail().load());
    }

    /** ", 0.81 x nginx's sustainable" when the same search ran against nginx and found a rate for the op. */
    private static String nginxSustainableRatio(TailResult r, TailResult.SustainableResult s) {
        TailResult.SustainableResult n = r.nginxSustainable(s.op());
        return n == null || n.rate() <= 0 ? "" : String.format(Locale.ROOT, ", %.2f x nginx's sustainable %s req/s",
                s.rate() / n.rate(), Units.rate(n.rate()));
    }
}
