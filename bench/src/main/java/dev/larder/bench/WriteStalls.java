package dev.larder.bench;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.Supplier;

/**
 * How long RocksDB held a Larder server's writes back (slowed or stopped them: too many full memtables or level-0
 * files) during each phase, from its {@code larder_rocksdb_write_stall_seconds_total} read every second on the admin
 * endpoint. In the write phases of session 72 every bad second followed a write stop that only the server's RocksDB
 * LOG showed (docs/performance.md, "Session 72"); this puts the cause beside the phase it hurt.
 */
final class WriteStalls implements AutoCloseable {

    static final String METRIC = "larder_rocksdb_write_stall_seconds_total";
    /** A scrape costs the server well under a millisecond of CPU; once a second is noise beside a phase's load. */
    static final long PERIOD_MILLIS = 1000;

    /** One reading: when (epoch nanoseconds) and the counter's value. */
    record Reading(long epochNanos, double stallSeconds) {
    }

    private final PeriodicSampler<Reading> sampler;

    private WriteStalls(PeriodicSampler<Reading> sampler) {
        this.sampler = sampler;
    }

    /** Starts reading {@code admin}'s metrics; with no admin URL, or a server without the metric, reads nothing. */
    static WriteStalls start(URI admin) {
        if (admin == null) {
            return new WriteStalls(null);
        }
        AdminClient client = new AdminClient(admin);
        return start(() -> client.metrics().orElse(null));
    }

    /** Reads the metric from the Prometheus text {@code metrics} gives (null: none) every {@link #PERIOD_MILLIS}. */
    static WriteStalls start(Supplier<String> metrics) {
        return new WriteStalls(PeriodicSampler.start("write-stalls", PERIOD_MILLIS, () -> read(metrics),
                List.of(WriteStalls.class, BackgroundWork.class, AdminClient.class)));
    }

    private static Reading read(Supplier<String> metrics) {
        String text = metrics.get();
        if (text == null) {
            return null;
        }
        OptionalDouble value = BackgroundWork.value(text, METRIC);
        Instant now = Instant.now();
        return value.isEmpty() ? null
                : new Reading(now.getEpochSecond() * 1_000_000_000L + now.getNano(), value.getAsDouble());
    }

    /**
     * Seconds of stall between {@code from} and {@code to}, from the readings just outside the span (so a stall
     * within a second of either end may count in the neighbouring phase too); NaN when they are not both there.
     */
    double seconds(Instant from, Instant to) {
        if (sampler == null) {
            return Double.NaN;
        }
        PeriodicSampler.Span<Reading> span = PeriodicSampler.around(sampler.readings(), Reading::epochNanos,
                epochNanos(from), epochNanos(to));
        return span.first() == null || span.last() == null ? Double.NaN
                : span.last().stallSeconds() - span.first().stallSeconds();
    }

    /** Takes one more reading now, so the last span has a reading after it. */
    void readNow() {
        if (sampler != null) {
            sampler.read();
        }
    }

    private static long epochNanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    @Override
    public void close() {
        if (sampler != null) {
            sampler.close();
        }
    }
}
