package dev.larder.bench;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.Supplier;

/**
 * How long RocksDB held a Larder server's writes back (slowed or stopped them: too many full memtables or level-0
 * files) in each phase, from its {@code larder_rocksdb_write_stall_seconds_total} on the admin endpoint read at each
 * phase boundary. In the write phases of session 72 every bad second followed a write stop that only the server's
 * RocksDB LOG showed (docs/performance.md, "Session 72"); this puts the cause beside the phase it hurt.
 *
 * <p>At the boundaries only, and that one metric only ({@code name[]}): the whole registry costs the server 4-6 ms of
 * CPU (Micrometer collects every meter; sessions 28 and 73), and on a server whose scrape was not compiled yet up to
 * 60 ms more of C2's, which put 7-227 ms into the first second of the phases (docs/performance.md, "Sessions 74-75").
 */
final class WriteStalls implements AutoCloseable {

    static final String METRIC = "larder_rocksdb_write_stall_seconds_total";
    /** How long {@link #between()} waits for the last boundary's reading once the phases are over. */
    private static final Duration LAST_READING_WITHIN = Duration.ofSeconds(10);

    private final Supplier<String> metrics;
    private double[] readings = new double[0];
    private Thread thread;

    private WriteStalls(Supplier<String> metrics) {
        this.metrics = metrics;
    }

    /** On {@code admin}'s metrics; with no admin URL every figure is unknown. */
    static WriteStalls of(URI admin) {
        if (admin == null) {
            return new WriteStalls(null);
        }
        AdminClient client = new AdminClient(admin);
        return of(() -> client.metrics(List.of(METRIC)).orElse(null));
    }

    /** On the Prometheus text {@code metrics} gives each time it is called (null: none). */
    static WriteStalls of(Supplier<String> metrics) {
        return new WriteStalls(metrics);
    }

    /**
     * Reads the counter at each of {@code boundaries} (in order; one already past is read at once) on a thread of its
     * own, and returns at once.
     */
    synchronized void readAt(List<Instant> boundaries) {
        double[] values = new double[boundaries.size()];
        Arrays.fill(values, Double.NaN);
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
        }, "write-stalls");
        thread.setDaemon(true);
        thread.start();
    }

    private double read() {
        try {
            String text = metrics.get();
            OptionalDouble value = text == null ? OptionalDouble.empty() : BackgroundWork.value(text, METRIC);
            return value.orElse(Double.NaN);
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * Seconds of stall between each boundary and the next (one figure fewer than boundaries); NaN where a reading is
     * missing. Waits for the last boundary's reading.
     */
    double[] between() {
        Thread t;
        double[] values;
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
        double[] stalls = new double[Math.max(0, values.length - 1)];
        for (int i = 0; i < stalls.length; i++) {
            stalls[i] = values[i + 1] - values[i];
        }
        return stalls;
    }

    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.interrupt();
        }
    }
}
