package dev.larder.bench;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs steps of the tail benchmark (PUT, GET or the mix, each at a rate for a while) one after another in one
 * generator session on one set of connections, and turns each measured step into a {@link RunResult}.
 */
final class TailSession {

    /**
     * One stretch of a session.
     *
     * @param name     for outputs
     * @param kind     what it sends
     * @param rate     total requests/s; 0 = closed loop
     * @param duration how long
     * @param measured whether it is a measured window
     */
    record Step(String name, TailPhase kind, double rate, Duration duration, boolean measured) {
    }

    private final BenchOptions options;
    private final TailOptions tail;
    private Zipfian zipfian;
    private int sessions;

    TailSession(BenchOptions options, TailOptions tail) {
        this.options = options;
        this.tail = tail;
    }

    /** One closed-loop step, measured whole. */
    RunResult closedLoop(URI url, String label, RequestEncoder encoder, AtomicLong cursor, TailPhase op,
                         Duration duration) {
        return run(url, label, encoder, cursor, List.of(new Step(op.name(), op, 0, duration, true))).get(0);
    }

    /**
     * What {@link #runPhases} measured.
     *
     * @param results      one per measured step, in order
     * @param measuredFrom when the first measured step started (wall clock)
     */
    record Measured(List<RunResult> results, Instant measuredFrom) {
    }

    /** Runs the steps on one set of connections; one result per measured step, in order. */
    List<RunResult> run(URI url, String label, RequestEncoder encoder, AtomicLong cursor, List<Step> steps) {
        return runPhases(url, label, encoder, cursor, steps).results();
    }

    /** {@link #run}, and when the first measured step started (unmeasured steps may come before it). */
    Measured runPhases(URI url, String label, RequestEncoder encoder, AtomicLong cursor, List<Step> steps) {
        return runPhases(url, label, encoder, cursor, steps, from -> { });
    }

    /**
     * {@link #runPhases(URI, String, RequestEncoder, AtomicLong, List)}, telling {@code scheduled} when the first
     * measured step will start before the schedule begins.
     */
    Measured runPhases(URI url, String label, RequestEncoder encoder, AtomicLong cursor, List<Step> steps,
                       Consumer<Instant> scheduled) {
        if (zipfian == null && options.workload().distribution() == KeyDistribution.ZIPFIAN) {
            zipfian = new Zipfian(options.workload().keys(), Zipfian.THETA);
        }
        // Every session and step draws its own ids and values, repeatably.
        long seed = options.seed() * 31 + 100_000L * sessions++;
        List<LoadGenerator.Phase> phases = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            Workload w = workload(s.kind());
            long stepSeed = seed + 1000L * i;
            Zipfian z = zipfian;
            phases.add(new LoadGenerator.Phase(s.name(), s.rate(), s.duration(), s.measured(),
                    t -> encoder.workload(w, z, cursor, stepSeed + t)));
        }
        LoadGenerator.Plan plan = new LoadGenerator.Plan(url, options.connections(), options.threads(),
                options.timeout(), tail.slo().thresholdMicros(), phases, options.arrivals(), seed);
        AtomicReference<Instant> measuredFrom = new AtomicReference<>();
        // Called before the schedule starts: its start is that far ahead of now.
        LoadGenerator.Outcome outcome = LoadGenerator.run(plan, (start, end) -> {
            measuredFrom.set(Instant.now().plusNanos(start - System.nanoTime()));
            scheduled.accept(measuredFrom.get());
        });
        List<RunResult> results = new ArrayList<>();
        int w = 0;
        for (Step s : steps) {
            if (s.measured()) {
                results.add(RunResult.merge(label, url, workload(s.kind()).describe(), s.rate(),
                        options.connections(), outcome.windows().get(w++), List.of()));
            }
        }
        return new Measured(results, measuredFrom.get());
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
}
