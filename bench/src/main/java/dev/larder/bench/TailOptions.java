package dev.larder.bench;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code larder bench tail} does beyond the shared load flags ({@link BenchOptions}: connections, threads,
 * keys, value size, prefill, outputs). Built and validated by the CLI layer.
 *
 * @param warmup           closed-loop PUT before anything is measured (JIT, caches, a first flush)
 * @param capacityDuration each closed-loop capacity run (PUT, then GET)
 * @param phaseDuration    each phase
 * @param load             fraction of the op's capacity each phase runs at, in (0, 1]
 * @param phases           the phases in order
 * @param mix              the MIX phase's weights
 * @param slo              what a phase, a second and a sustainable rate are held to
 * @param switchWindow     the first seconds of a phase over which the switch cost is counted
 * @param nginx            an HTTP ceiling (nginx {@code return 200}) to replay the phases against, or {@code null}
 * @param sustainable      also find the sustainable rate of PUT and GET by bisection
 * @param hold             how long a rate must hold the SLO, after a write phase, to be sustainable
 * @param bisectSteps      bisection runs per op between 0 and the capacity (resolution capacity / 2^steps)
 * @param rates            fixed phase rates (req/s) by kind, used instead of {@code load} x the measured capacity
 *                         for the kinds it names; empty when every phase follows {@code load}
 * @param nginxOwnLoad     with {@code nginx}: also measure nginx's own closed-loop capacities and run the same phases
 *                         against it at {@code load} x those. The control for the phase targets: whether this machine
 *                         and this generator hold the SLO at that load for a server that does no work at all
 * @param nginxSustainable with {@code nginx} and {@code sustainable}: also run the sustainable search against nginx,
 *                         between 0 and its own closed-loop capacities, after the same write phases. The breakdown
 *                         point this machine and generator allow a server that does no work, measured the same way
 * @param sustainableOps   with {@code sustainable}: the ops searched (GET, PUT or both), in the order they are searched,
 *                         GET first; one op alone halves a search of about 20 minutes, for comparing two builds or
 *                         two modes on the op in question
 * @param speedProbe       with {@code nginx}: each reading of {@link MachineSpeed} (nginx's closed-loop GET before the
 *                         capacity runs, after the phases, after nginx's phases); zero reads none
 */
public record TailOptions(Duration warmup, Duration capacityDuration, Duration phaseDuration, double load,
                          List<TailPhase> phases, List<Workload.Weighted> mix, Slo slo, Duration switchWindow,
                          URI nginx, boolean sustainable, Duration hold, int bisectSteps,
                          Map<TailPhase, Long> rates, boolean nginxOwnLoad, boolean nginxSustainable,
                          List<TailPhase> sustainableOps, Duration speedProbe) {

    /**
     * What {@code --sustainable} searches unless told otherwise, in its order: GET first, because a PUT search's holds
     * add tens of millions of keys a GET search would then run on (docs/performance.md, session 31).
     */
    public static final List<TailPhase> SUSTAINABLE_OPS = List.of(TailPhase.GET, TailPhase.PUT);

    /** No machine speed readings. */
    public TailOptions(Duration warmup, Duration capacityDuration, Duration phaseDuration, double load,
                       List<TailPhase> phases, List<Workload.Weighted> mix, Slo slo, Duration switchWindow,
                       URI nginx, boolean sustainable, Duration hold, int bisectSteps, Map<TailPhase, Long> rates,
                       boolean nginxOwnLoad, boolean nginxSustainable, List<TailPhase> sustainableOps) {
        this(warmup, capacityDuration, phaseDuration, load, phases, mix, slo, switchWindow, nginx, sustainable, hold,
                bisectSteps, rates, nginxOwnLoad, nginxSustainable, sustainableOps, Duration.ZERO);
    }

    /** Both ops searched when {@code sustainable}. */
    public TailOptions(Duration warmup, Duration capacityDuration, Duration phaseDuration, double load,
                       List<TailPhase> phases, List<Workload.Weighted> mix, Slo slo, Duration switchWindow,
                       URI nginx, boolean sustainable, Duration hold, int bisectSteps, Map<TailPhase, Long> rates,
                       boolean nginxOwnLoad, boolean nginxSustainable) {
        this(warmup, capacityDuration, phaseDuration, load, phases, mix, slo, switchWindow, nginx, sustainable, hold,
                bisectSteps, rates, nginxOwnLoad, nginxSustainable, SUSTAINABLE_OPS);
    }

    /** Every phase at {@code load} x its op's measured capacity. */
    public TailOptions(Duration warmup, Duration capacityDuration, Duration phaseDuration, double load,
                       List<TailPhase> phases, List<Workload.Weighted> mix, Slo slo, Duration switchWindow,
                       URI nginx, boolean sustainable, Duration hold, int bisectSteps) {
        this(warmup, capacityDuration, phaseDuration, load, phases, mix, slo, switchWindow, nginx, sustainable, hold,
                bisectSteps, Map.of(), false, false);
    }

    /** Without nginx's sustainable search. */
    public TailOptions(Duration warmup, Duration capacityDuration, Duration phaseDuration, double load,
                       List<TailPhase> phases, List<Workload.Weighted> mix, Slo slo, Duration switchWindow,
                       URI nginx, boolean sustainable, Duration hold, int bisectSteps, Map<TailPhase, Long> rates,
                       boolean nginxOwnLoad) {
        this(warmup, capacityDuration, phaseDuration, load, phases, mix, slo, switchWindow, nginx, sustainable, hold,
                bisectSteps, rates, nginxOwnLoad, false);
    }

    public TailOptions {
        phases = List.copyOf(phases);
        EnumMap<TailPhase, Long> fixedRates = new EnumMap<>(TailPhase.class);
        if (rates != null) {
            fixedRates.putAll(rates);
        }
        rates = Collections.unmodifiableMap(fixedRates);
        for (Map.Entry<TailPhase, Long> r : rates.entrySet()) {
            if (r.getValue() == null || r.getValue() < 1) {
                throw new IllegalArgumentException("rates: " + r.getKey().flag() + "=" + r.getValue()
                        + " (expected: a rate >= 1 req/s)");
            }
        }
        mix = List.copyOf(mix);
        if (warmup == null || warmup.isNegative()) {
            throw new IllegalArgumentException("warmup: " + warmup + " (expected: >= 0)");
        }
        positive("capacity-duration", capacityDuration);
        positive("phase-duration", phaseDuration);
        positive("switch-window", switchWindow);
        positive("hold", hold);
        if (!(load > 0 && load <= 1)) {
            throw new IllegalArgumentException("load: " + load + " (expected: 0 < load <= 1, a fraction of the "
                    + "capacity)");
        }
        if (phases.isEmpty()) {
            throw new IllegalArgumentException("phases: empty (expected: e.g. put,get,mix,put,get)");
        }
        if (mix.isEmpty()) {
            throw new IllegalArgumentException("mix: empty (expected: e.g. get=90,put=10)");
        }
        for (Workload.Weighted w : mix) {
            if (w.operation() != Operation.GET && w.operation() != Operation.PUT) {
                throw new IllegalArgumentException("mix: " + w.operation().flag() + " (expected: get and put only, "
                        + "whose capacities are measured)");
            }
        }
        if (slo == null) {
            throw new IllegalArgumentException("slo: required");
        }
        if (nginx != null) {
            Target.validate(nginx);
        }
        if (nginxOwnLoad && nginx == null) {
            throw new IllegalArgumentException("nginx-own-load: needs --nginx URL (the server to measure at its own "
                    + "capacity)");
        }
        if (nginxSustainable && (nginx == null || !sustainable)) {
            throw new IllegalArgumentException("nginx-sustainable: needs --nginx URL and --sustainable (the search "
                    + "to run against nginx too)");
        }
        if (speedProbe == null || speedProbe.isNegative()) {
            throw new IllegalArgumentException("speed-probe: " + speedProbe + " (expected: >= 0)");
        }
        if (!speedProbe.isZero() && nginx == null) {
            throw new IllegalArgumentException("speed-probe: needs --nginx URL (the server whose closed-loop rate "
                    + "tells the machine's speed)");
        }
        if (bisectSteps < 1 || bisectSteps > 20) {
            throw new IllegalArgumentException("bisect: " + bisectSteps + " (expected: 1..20)");
        }
        sustainableOps = searchOrder(sustainableOps);
    }

    /** Parses {@code get}, {@code put} or {@code get,put} (either order; searched GET first). */
    public static List<TailPhase> parseSustainableOps(String text) {
        List<TailPhase> ops = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String name = part.trim();
            TailPhase op = SUSTAINABLE_OPS.stream().filter(o -> o.flag().equalsIgnoreCase(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("sustainable-ops: '" + name
                            + "' (expected: get, put or get,put)"));
            ops.add(op);
        }
        return ops;
    }

    /** {@code ops} in the order {@link #SUSTAINABLE_OPS} gives them; each of GET and PUT at most once, nothing else. */
    private static List<TailPhase> searchOrder(List<TailPhase> ops) {
        String expected = " (expected: get, put or get,put)";
        if (ops == null || ops.isEmpty()) {
            throw new IllegalArgumentException("sustainable-ops: empty" + expected);
        }
        for (TailPhase op : ops) {
            if (!SUSTAINABLE_OPS.contains(op)) {
                throw new IllegalArgumentException("sustainable-ops: " + op.flag() + expected);
            }
            if (ops.indexOf(op) != ops.lastIndexOf(op)) {
                throw new IllegalArgumentException("sustainable-ops: " + op.flag() + " twice" + expected);
            }
        }
        return SUSTAINABLE_OPS.stream().filter(ops::contains).toList();
    }

    private static void positive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + ": " + d + " (expected: > 0)");
        }
    }

    /** The MIX phase's weights as text ({@code get=90,put=10}). */
    public String mixText() {
        StringBuilder sb = new StringBuilder();
        for (Workload.Weighted w : mix) {
            sb.append(sb.length() > 0 ? "," : "").append(w.operation().flag()).append('=').append(w.weight());
        }
        return sb.toString();
    }

    /**
     * Parses {@code put=60000,get=40000}: fixed rates for the phases of those kinds, so that two builds or two sets
     * of flags meet the same load whatever their measured capacities.
     */
    public static Map<TailPhase, Long> parseRates(String text) {
        Map<TailPhase, Long> out = new EnumMap<>(TailPhase.class);
        String expected = "expected kind=req/s, e.g. put=60000,get=40000";
        NamedValues.parse(text, "rates", expected, (part, name, value) -> {
            TailPhase kind = TailPhase.parseList(name).get(0);
            long rate;
            try {
                rate = Long.parseLong(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("rates: '" + part + "' (" + expected + ")");
            }
            if (rate < 1 || out.put(kind, rate) != null) {
                throw new IllegalArgumentException("rates: '" + part + "' (expected each kind once, with a rate >= 1)");
            }
        });
        if (out.isEmpty()) {
            throw new IllegalArgumentException("rates: '" + text + "' (expected e.g. put=60000,get=40000)");
        }
        return out;
    }

    /** The rate of a phase of this kind: the fixed one if given, else {@link #loadRate}. */
    public long rate(TailPhase kind, double capacity) {
        Long fixed = rates.get(kind);
        return fixed != null ? fixed : loadRate(capacity);
    }

    /**
     * The mean of a per-request figure over the mix, each op's weighted as the mix is: what a mix request costs from
     * what a PUT and a GET cost (the inverse of a capacity is such a cost).
     */
    public double mixMean(double put, double get) {
        double total = 0;
        double sum = 0;
        for (Workload.Weighted w : mix) {
            total += w.weight();
            sum += w.weight() * (w.operation() == Operation.PUT ? put : get);
        }
        return sum / total;
    }

    /** {@code load} x the capacity, whatever {@code rates} fixed (the control's phases run at this). */
    public long loadRate(double capacity) {
        return Math.round(load * capacity);
    }

    /** One line for the report and the JSON. */
    public String describe() {
        StringBuilder p = new StringBuilder();
        for (TailPhase t : phases) {
            p.append(p.length() > 0 ? "," : "").append(t.flag());
        }
        return String.format(Locale.ROOT, "warmup=%s capacity-duration=%s phase-duration=%s load=%s phases=%s "
                        + "mix=%s slo=%s switch-window=%s nginx=%s sustainable=%s hold=%s bisect=%d%s",
                seconds(warmup), seconds(capacityDuration), seconds(phaseDuration), load, p, mixText(),
                slo.describe(), seconds(switchWindow), nginx, sustainable, seconds(hold), bisectSteps, ratesText())
                + (sustainable && !sustainableOps.equals(SUSTAINABLE_OPS) ? " sustainable-ops=" + opsText() : "")
                + (nginxOwnLoad ? " nginx-own-load=true" : "") + (nginxSustainable ? " nginx-sustainable=true" : "")
                + (speedProbe.isZero() ? "" : " speed-probe=" + seconds(speedProbe));
    }

    private String opsText() {
        StringBuilder sb = new StringBuilder();
        sustainableOps.forEach(op -> sb.append(sb.length() == 0 ? "" : ",").append(op.flag()));
        return sb.toString();
    }

    private String ratesText() {
        StringBuilder sb = new StringBuilder();
        rates.forEach((k, v) -> sb.append(sb.length() == 0 ? " rates=" : ",").append(k.flag()).append('=').append(v));
        return sb.toString();
    }

    private static String seconds(Duration d) {
        return Units.shortTime(d.toNanos() / 1000.0);
    }
}
