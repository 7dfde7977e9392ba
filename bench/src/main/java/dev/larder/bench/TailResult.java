package dev.larder.bench;

import java.net.URI;
import java.time.Instant;
import java.util.List;

/**
 * A whole {@code larder bench tail} run.
 *
 * @param options       the shared load flags
 * @param tail          the tail flags
 * @param started       when it began (before the warm-up)
 * @param phasesStarted when the first phase began: the origin of each phase's {@code startSeconds}, so that
 *                      whatever was sampled on the server by wall clock (thread CPU, metrics) lines up with them
 * @param machine       a line about the generator's machine
 * @param label         the server's name
 * @param url           its data URL
 * @param settings      what we learned of its configuration
 * @param prefill       the prefill summary, or {@code null}
 * @param warmup        the closed-loop PUT warm-up, or {@code null} if skipped
 * @param putCapacity   closed-loop PUT run: its achieved rate is the PUT capacity
 * @param getCapacity   closed-loop GET run
 * @param phases        the phases, in order
 * @param sustainable   the sustainable rates (PUT, GET), empty unless asked for
 * @param nginxCapacity closed-loop GET run against nginx (its saturated rate), or {@code null}
 * @param nginxOwnLoad  the phases against nginx at the same fraction of its own capacities, or {@code null}
 * @param nginxSustainable the same sustainable search against nginx (GET, PUT; each bisected up to nginx's own
 *                      capacity of that op), empty unless asked for
 * @param machineSpeed  nginx's closed-loop rate at three points of the run, or {@code null} when not read
 */
public record TailResult(BenchOptions options, TailOptions tail, Instant started, Instant phasesStarted,
                         String machine, String label,
                         URI url, List<String> settings, String prefill, RunResult warmup, RunResult putCapacity,
                         RunResult getCapacity, List<PhaseResult> phases, List<SustainableResult> sustainable,
                         RunResult nginxCapacity, OwnLoad nginxOwnLoad, List<SustainableResult> nginxSustainable,
                         MachineSpeed machineSpeed) {

    public TailResult {
        settings = List.copyOf(settings);
        phases = List.copyOf(phases);
        sustainable = List.copyOf(sustainable);
        nginxSustainable = List.copyOf(nginxSustainable);
    }

    /** Without the machine's speed. */
    public TailResult(BenchOptions options, TailOptions tail, Instant started, Instant phasesStarted, String machine,
                      String label, URI url, List<String> settings, String prefill, RunResult warmup,
                      RunResult putCapacity, RunResult getCapacity, List<PhaseResult> phases,
                      List<SustainableResult> sustainable, RunResult nginxCapacity, OwnLoad nginxOwnLoad,
                      List<SustainableResult> nginxSustainable) {
        this(options, tail, started, phasesStarted, machine, label, url, settings, prefill, warmup, putCapacity,
                getCapacity, phases, sustainable, nginxCapacity, nginxOwnLoad, nginxSustainable, null);
    }

    /** Without nginx's sustainable search. */
    public TailResult(BenchOptions options, TailOptions tail, Instant started, Instant phasesStarted, String machine,
                      String label, URI url, List<String> settings, String prefill, RunResult warmup,
                      RunResult putCapacity, RunResult getCapacity, List<PhaseResult> phases,
                      List<SustainableResult> sustainable, RunResult nginxCapacity, OwnLoad nginxOwnLoad) {
        this(options, tail, started, phasesStarted, machine, label, url, settings, prefill, warmup, putCapacity,
                getCapacity, phases, sustainable, nginxCapacity, nginxOwnLoad, List.of());
    }

    /** What the machine's speed readings warn of; empty when they were not read or did not move. */
    public List<Warning> machineSpeedWarnings() {
        return machineSpeed == null ? List.of() : machineSpeed.warnings(tail.load());
    }

    /** The server's sustainable rate of {@code op}, or {@code null} when it was not searched. */
    public SustainableResult sustainable(TailPhase op) {
        return SustainableResult.of(sustainable, op);
    }

    /** nginx's sustainable rate of {@code op} from the same search, or {@code null} when it was not searched. */
    public SustainableResult nginxSustainable(TailPhase op) {
        return SustainableResult.of(nginxSustainable, op);
    }

    /**
     * What a request of {@code kind} cost the server at saturation in this run, in microseconds: the CPU per answer of
     * its closed-loop capacity run; for the mix, the mean of PUT's and GET's weighted as the mix is. NaN when the
     * server's CPU could not be read.
     */
    public double saturatedMicrosPerRequest(TailPhase kind) {
        double put = putCapacity.serverMicrosPerRequest();
        double get = getCapacity.serverMicrosPerRequest();
        return switch (kind) {
            case PUT -> put;
            case GET -> get;
            case MIX -> tail.mixMean(put, get);
        };
    }

    /**
     * A phase's CPU per answer over the saturated cost of its kind ({@link #saturatedMicrosPerRequest}). At
     * saturation each wake-up of the server, each system call and each write batch is shared by many requests; at a
     * fixed rate by few, so a phase at a fraction L of capacity keeps about L times this ratio of the capacity run's
     * CPU busy, and above 1 of a core every pause of the server becomes a queue. The phase's CPU leaves out the
     * loops' spin ({@link PhaseResult#serverMicrosPerRequest}); the capacity runs have none to leave out (a loop
     * busy for a whole window stops waiting, docs/performance.md, "Session 90"). NaN when either CPU is unknown.
     */
    public double costOverSaturated(PhaseResult phase) {
        double saturated = saturatedMicrosPerRequest(phase.kind());
        double fixed = phase.serverMicrosPerRequest();
        return saturated > 0 ? fixed / saturated : Double.NaN;
    }

    /** {@link #costOverSaturated} for humans: {@code 1.31x}; {@code -} when unknown. */
    public String costOverSaturatedText(PhaseResult phase) {
        double r = costOverSaturated(phase);
        return Double.isNaN(r) ? "-" : String.format(java.util.Locale.ROOT, "%.2fx", r);
    }

    /** Phases of the measured server whose p99 is within {@code boundMicros}. */
    public long phasesWithin(long boundMicros) {
        return phases.stream().filter(p -> p.larder().percentile(99) <= boundMicros).count();
    }

    /**
     * The control for the phase targets: the same phases against nginx at the same fraction of nginx's own
     * closed-loop capacities, so a phase that misses the SLO can be told apart from one that any server would miss on
     * this machine with this generator at that load.
     *
     * @param putCapacity nginx's closed-loop PUT run
     * @param getCapacity nginx's closed-loop GET run
     * @param phases      each phase at {@code load} x nginx's capacity of its op, in the measured server's order
     */
    public record OwnLoad(RunResult putCapacity, RunResult getCapacity, List<OwnLoadPhase> phases) {
        public OwnLoad {
            phases = List.copyOf(phases);
        }

        /** Phases whose p99 is within {@code boundMicros}. */
        public long phasesWithin(long boundMicros) {
            return phases.stream().filter(p -> p.result().percentile(99) <= boundMicros).count();
        }
    }

    /** One phase of the control: its kind, its rate and nginx's window. */
    public record OwnLoadPhase(TailPhase kind, double rate, RunResult result) {
        /** Seconds of the phase whose p99 is above {@code boundMicros}. */
        public int secondsAbove(long boundMicros) {
            return result.timeline().secondsAbove(boundMicros);
        }
    }

    /**
     * One phase: Larder's figures and, when measured, nginx's at the same rate.
     *
     * @param kind         what it sent
     * @param rate         target requests/s
     * @param startSeconds where it starts on the session's time axis
     * @param larder       the server's window
     * @param nginx        nginx's window at the same rate, or {@code null}
     * @param writeStallSeconds how long RocksDB held the server's writes back during the phase
     *                          ({@link BoundaryCounters}); NaN unknown (no admin endpoint, not Larder)
     * @param spinSeconds  how long the server's event loops spun through coalescing windows during the phase
     *                     ({@code --io-coalesce-wait spin}, {@link BoundaryCounters}); NaN unknown or not spinning
     */
    public record PhaseResult(TailPhase kind, double rate, double startSeconds, RunResult larder, RunResult nginx,
                              double writeStallSeconds, double spinSeconds) {

        /** With the write stalls and the spin unknown. */
        public PhaseResult(TailPhase kind, double rate, double startSeconds, RunResult larder, RunResult nginx) {
            this(kind, rate, startSeconds, larder, nginx, Double.NaN, Double.NaN);
        }

        /** With the spin unknown. */
        public PhaseResult(TailPhase kind, double rate, double startSeconds, RunResult larder, RunResult nginx,
                           double writeStallSeconds) {
            this(kind, rate, startSeconds, larder, nginx, writeStallSeconds, Double.NaN);
        }

        /** The cores the event loops spent spinning through coalescing windows in the phase; 0 when unknown. */
        public double spinCores() {
            double seconds = larder.seconds();
            return Double.isNaN(spinSeconds) || seconds <= 0 ? 0 : spinSeconds / seconds;
        }

        /**
         * The server's CPU per answer in the phase, in microseconds, without the loops' spin (CPU that served no
         * request: a spinning loop fills the core's idle time, which a sleeping one leaves to the kernel); NaN when
         * unknown.
         */
        public double serverMicrosPerRequest() {
            double rate = larder.achievedRate();
            double cores = larder.serverCores() - spinCores();
            return Double.isNaN(cores) || rate <= 0 ? Double.NaN : cores * 1e6 / rate;
        }

        /** The cores the phase kept the server's request path busy: its foreground CPU without the spin. */
        public double requestPathCores() {
            return larder.serverForegroundCores() - spinCores();
        }

        /** Seconds of the phase whose p99 is above {@code boundMicros}. */
        public int secondsAbove(long boundMicros) {
            return larder.timeline().secondsAbove(boundMicros);
        }

        /**
         * Of those, the seconds in which the host took more than {@link Timeline#STOLEN_SHARE} of the server's CPU;
         * -1 unknown.
         */
        public int secondsAboveStolen(long boundMicros) {
            return larder.timeline().secondsAboveWithSteal(boundMicros, Timeline.STOLEN_SHARE);
        }

        /** {@link #secondsAboveStolen} as text: the count, or "-" when the host's steal is unknown. */
        public String secondsAboveStolenText(long boundMicros) {
            int n = secondsAboveStolen(boundMicros);
            return n < 0 ? "-" : Integer.toString(n);
        }

        /** Seconds from the switch to the first second with p99 within {@code boundMicros}; -1 for never. */
        public int recoverySeconds(long boundMicros) {
            return larder.timeline().recoverySeconds(boundMicros);
        }

        /**
         * What the switch into this phase cost: the answers above the timeline's threshold (the SLO bound) in its
         * first {@code window}, in seconds of requests at the phase's rate (count / rate). 1 s = a whole second's
         * worth of requests were late.
         */
        public double switchCostSeconds(java.time.Duration window) {
            int seconds = TimelineRecorder.secondsOf(window.toNanos());
            return rate > 0 ? larder.timeline().overThreshold(seconds) / rate : 0;
        }

        /** {@link #p99Ratio()} for humans: {@code 0.04x}, {@code 2.31x}, {@code 140x}; empty without nginx. */
        public String p99RatioText() {
            double r = p99Ratio();
            if (Double.isNaN(r)) {
                return "";
            }
            return String.format(java.util.Locale.ROOT, r < 10 ? "%.2fx" : "%.0fx", r);
        }

        /** Larder's p99 over nginx's at the same rate; NaN without nginx. */
        public double p99Ratio() {
            if (nginx == null || nginx.percentile(99) == 0) {
                return Double.NaN;
            }
            return (double) larder.percentile(99) / nginx.percentile(99);
        }
    }

    /**
     * A sustainable rate found by bisection.
     *
     * @param op         PUT or GET
     * @param capacity   the closed-loop (saturated) rate it was searched under
     * @param rate       the highest rate that held the SLO for the hold after a write phase; 0 if none did
     * @param resolution capacity / 2^steps: the true breakdown point is below {@code rate + resolution}
     * @param trials        each hold the bisection went by, in order, with why it missed (empty = held)
     * @param measuredAgain the holds that missed while the generator lagged or the host took CPU time, each run once
     *                      more at the same rate (the run after it is the one in {@code trials})
     */
    public record SustainableResult(TailPhase op, double capacity, double rate, double resolution,
                                    List<SweepOutcome.Point> trials, List<SweepOutcome.Point> measuredAgain) {
        public SustainableResult {
            trials = List.copyOf(trials);
            measuredAgain = List.copyOf(measuredAgain);
        }

        /** The one of {@code op} among {@code found}, or {@code null} when that op was not searched. */
        static SustainableResult of(List<SustainableResult> found, TailPhase op) {
            return found.stream().filter(s -> s.op() == op).findFirst().orElse(null);
        }

        /** {@code 34.8k}, or {@code below 1.7k} (the resolution) when no trial held. */
        String rateText() {
            return rate > 0 ? Units.rate(rate) : "below " + resolutionText();
        }

        /** The bisection's resolution as a rate, {@code 1.7k}. */
        String resolutionText() {
            return Units.rate(Math.round(resolution));
        }
    }
}
