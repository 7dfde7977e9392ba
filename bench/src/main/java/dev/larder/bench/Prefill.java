package dev.larder.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/** {@code --prefill}: {@code PUT k1..k<keys>} once, closed loop, before anything is measured. */
final class Prefill {

    /** Connections the prefill uses at most. */
    static final int CONNECTIONS = 8;

    private Prefill() {
    }

    /**
     * Writes the keys, prints progress and a warning if some were not written, and moves {@code putCursor} past
     * them (sequential PUTs continue after the prefilled ids). Returns the one-line summary.
     */
    static String run(ServerHandle server, RequestEncoder encoder, AtomicLong putCursor, BenchOptions options,
                      PrintStream out) {
        long keys = options.workload().keys();
        out.printf("  prefill: PUT k1..k%d ...%n", keys);
        AtomicLong cursor = new AtomicLong();
        // Few connections: a closed loop on all of them could overflow a small server queue, and every rejected
        // PUT would be a key missing from the reads that follow.
        int connections = Math.min(options.connections(), CONNECTIONS);
        LoadGenerator.Plan plan = LoadGenerator.Plan.untilExhausted(server.url(), connections,
                Math.min(options.threads(), connections), options.timeout(),
                t -> encoder.prefill(cursor, keys, options.workload().valueSize(), options.seed() + 1000 + t));
        LoadGenerator.Outcome o = LoadGenerator.run(plan, null);
        RunResult r = RunResult.merge(server.label(), server.url(), "prefill", 0, connections, o.windows().get(0),
                List.of());
        putCursor.set(keys);
        String summary = String.format(Locale.ROOT, "PUT k1..k%d: %d answers in %.1fs (%.0f req/s), status %s%s",
                keys, r.completed(), r.seconds(), r.achievedRate(), r.statusCounts(),
                r.errors().total() > 0 ? ", socket errors " + r.errors().total() : "");
        out.println("  prefill: " + summary);
        long ok = r.statusCounts().getOrDefault(201, 0L) + r.statusCounts().getOrDefault(200, 0L)
                + r.statusCounts().getOrDefault(204, 0L);
        if (ok < keys) {
            out.printf("  WARNING: prefill wrote %d of %d keys; GETs of the others will answer 404%n", ok, keys);
        }
        return summary;
    }
}
