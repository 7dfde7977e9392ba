package dev.larder.bench;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Supplier;

/**
 * A Larder server's counters read at each phase boundary, so each phase gets what they counted in it:
 * {@link #WRITE_STALL_SECONDS}, how long RocksDB held writes back (slowed or stopped them: too many full memtables or
 * level-0 files; in the write phases of session 72 every bad second followed a write stop that only the server's
 * RocksDB LOG showed, docs/performance.md), and {@link #COALESCE_SPIN_SECONDS}, how long the event loops spun through
 * their coalescing windows ({@code --io-coalesce-wait spin}): CPU of the loops' threads that served no request, so
 * the phases' CPU per answer leaves it out (docs/performance.md, "Session 91").
 *
 * <p>At the boundaries only, and those metrics only ({@code name[]}), in one scrape: the whole registry costs the
 * server 4-6 ms of CPU (Micrometer collects every meter; sessions 28 and 73), and on a server whose scrape was not
 * compiled yet up to 60 ms more of C2's, which put 7-227 ms into the first second of the phases (docs/performance.md,
 * "Sessions 74-75").
 */
final class BoundaryCounters implements AutoCloseable {

    static final String WRITE_STALL_SECONDS = "larder_rocksdb_write_stall_seconds_total";
    static final String COALESCE_SPIN_SECONDS = "larder_io_coalesce_spin_seconds_total";
    /** What {@code bench tail} reads. */
    static final List<String> TAIL = List.of(WRITE_STALL_SECONDS, COALESCE_SPIN_SECONDS);
    /** How long {@link #between} waits for the last boundary's reading once the phases are over. */
    private static final Duration LAST_READING_WITHIN = Duration.ofSeconds(10);

    private final List<String> names;
    private final Supplier<String> metrics;
    /** Per boundary, per name; NaN where a reading is missing. */
    private double[][] readings = new double[0][];
    private Thread thread;

    private BoundaryCounters(List<String> names, Supplier<String> metrics) {
        this.names = List.copyOf(names);
        this.metrics = metrics;
    }

    /** {@code names} on {@code admin}'s metrics; with no admin URL every figure is unknown. */
    static BoundaryCounters of(URI admin, List<String> names) {
        if (admin == null) {
            return new BoundaryCounters(names, null);
        }
        AdminClient client = new AdminClient(admin);
        return of(names, () -> client.metrics(names).orElse(null));
    }

    /** {@code names} in the Prometheus text {@code metrics} gives each time it is called (null: none). */
    static BoundaryCounters of(List<String> names, Supplier<String> metrics) {
        return new BoundaryCounters(names, metrics);
    }

    /**
     * Reads the counters at each of {@code boundaries} (in order; one already past is read at once) on a thread of
     * its own, and returns at once.
     */
    synchronized void readAt(List<Instant> boundaries) {
        double[][] values = new double[boundaries.size()][names.size()];
        for (double[] v : values) {
            Arrays.fill(v, Double.NaN);
        }
        readings = values;
        if (metrics == null) {
            return;
        }
        thread = new Thread(() -> {
            for (int i = 0; i < boundaries.size(); i++) {
                long wait = Duration.between(Instant.now(), boundaries.get(i)).toNanos();
                if (wait > 0) {
                    try {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                values[i] = read();
            }
        }, "boundary-counters");
        thread.setDaemon(true);
        thread.start();
    }

    private double[] read() {
        double[] values = new double[names.size()];
        Arrays.fill(values, Double.NaN);
        try {
            String text = metrics.get();
            if (text != null) {
                for (int n = 0; n < values.length; n++) {
                    OptionalDouble value = BackgroundWork.value(text, names.get(n));
                    values[n] = value.orElse(Double.NaN);
                }
            }
        } catch (RuntimeException e) {
            // A failed scrape leaves this boundary unknown.
        }
        return values;
    }

    /**
     * For each name, what it counted between each boundary and the next (one figure fewer than boundaries); NaN where
     * a reading is missing. Waits for the last boundary's reading.
     */
    Spans between() {
        Thread t;
        double[][] values;
        synchronized (this) {
            t = thread;
            values = readings;
        }
        if (t != null) {
            try {
                t.join(LAST_READING_WITHIN.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                t.interrupt();
            }
        }
        Map<String, double[]> byName = new LinkedHashMap<>();
        for (int n = 0; n < names.size(); n++) {
            double[] spans = new double[Math.max(0, values.length - 1)];
            for (int i = 0; i < spans.length; i++) {
                spans[i] = values[i + 1][n] - values[i][n];
            }
            byName.put(names.get(n), spans);
        }
        return new Spans(byName, Math.max(0, values.length - 1));
    }

    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    /** What each counter counted between consecutive boundaries. */
    static final class Spans {
        private final Map<String, double[]> byName;
        private final int count;

        private Spans(Map<String, double[]> byName, int count) {
            this.byName = byName;
            this.count = count;
        }

        /** {@code name}'s figure for span {@code i}; NaN when unknown or out of range. */
        double of(String name, int i) {
            double[] spans = byName.get(name);
            if (spans == null) {
                throw new IllegalArgumentException("not read: " + name);
            }
            return i >= 0 && i < spans.length ? spans[i] : Double.NaN;
        }

        /** How many spans there are. */
        int count() {
            return count;
        }
    }
}
