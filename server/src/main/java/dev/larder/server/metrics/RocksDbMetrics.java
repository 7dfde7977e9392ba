package dev.larder.server.metrics;

import dev.larder.storage.StoreStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * RocksDB figures through {@link StoreStats}, which answers empty once the store is closed: then gauges read NaN and
 * counters keep their last value, so a scrape racing with shutdown never touches released native memory. Keep the
 * binder referenced while the registry is in use: it holds the counters' state.
 */
public final class RocksDbMetrics implements MeterBinder {

    private final StoreStats stats;
    private final List<LastValue> tickers = new ArrayList<>();

    public RocksDbMetrics(StoreStats stats) {
        this.stats = stats;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        property(registry, "larder.rocksdb.keys.estimate", "rocksdb.estimate-num-keys", null,
                "Estimated number of keys (memtables and SST files; counts overwritten keys until compaction)");
        property(registry, "larder.rocksdb.block.cache.usage", "rocksdb.block-cache-usage", BaseUnits.BYTES,
                "Memory held by entries in the block cache");
        property(registry, "larder.rocksdb.block.cache.capacity", "rocksdb.block-cache-capacity", BaseUnits.BYTES,
                "Block cache capacity (--block-cache)");
        property(registry, "larder.rocksdb.memtables.size", "rocksdb.cur-size-all-mem-tables", BaseUnits.BYTES,
                "Memory of the active and unflushed immutable memtables");
        property(registry, "larder.rocksdb.live.sst.size", "rocksdb.live-sst-files-size", BaseUnits.BYTES,
                "Total size of the SST files the current version uses");
        property(registry, "larder.rocksdb.compaction.pending", "rocksdb.estimate-pending-compaction-bytes",
                BaseUnits.BYTES, "Bytes compaction estimates it must rewrite to bring every level under its target");
        property(registry, "larder.rocksdb.compactions.running", "rocksdb.num-running-compactions", null,
                "Compactions running now");
        property(registry, "larder.rocksdb.write.delayed.rate", "rocksdb.actual-delayed-write-rate", "bytes.per.second",
                "Write rate RocksDB throttles to while it delays writes; 0 when writes are not delayed");
        property(registry, "larder.rocksdb.write.stopped", "rocksdb.is-write-stopped", null,
                "1 while RocksDB stops writes (too many L0 files or memtables, or pending compaction), else 0");

        ticker(registry, "larder.rocksdb.block.cache.hits", "BLOCK_CACHE_HIT", null, 1,
                "Block cache lookups that hit");
        ticker(registry, "larder.rocksdb.block.cache.misses", "BLOCK_CACHE_MISS", null, 1,
                "Block cache lookups that missed and read from disk");
        ticker(registry, "larder.rocksdb.row.cache.hits", "ROW_CACHE_HIT", null, 1,
                "Point lookups answered from the row cache (--row-cache)");
        ticker(registry, "larder.rocksdb.row.cache.misses", "ROW_CACHE_MISS", null, 1,
                "Point lookups the row cache could not answer (--row-cache)");
        ticker(registry, "larder.rocksdb.read", "BYTES_READ", BaseUnits.BYTES, 1,
                "Bytes returned by point lookups (uncompressed values)");
        ticker(registry, "larder.rocksdb.written", "BYTES_WRITTEN", BaseUnits.BYTES, 1,
                "Bytes written by put and delete calls (uncompressed, before the WAL)");
        ticker(registry, "larder.rocksdb.write.stall", "STALL_MICROS", "seconds", 1e-6,
                "Time writers were stalled or slowed down by RocksDB");
    }

    private void property(MeterRegistry registry, String name, String property, String unit, String description) {
        Gauge.builder(name, stats, s -> orNaN(s.property(property)))
                .description(description + " (" + property + ")")
                .baseUnit(unit)
                .strongReference(true)
                .register(registry);
    }

    private void ticker(MeterRegistry registry, String name, String ticker, String unit, double scale,
                        String description) {
        LastValue last = new LastValue(stats, ticker);
        // FunctionCounter holds its object weakly: this binder keeps it reachable for as long as it is kept.
        tickers.add(last);
        FunctionCounter.builder(name, last, l -> l.read() * scale)
                .description(description + " (ticker " + ticker + ")")
                .baseUnit(unit)
                .register(registry);
    }

    private static double orNaN(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : Double.NaN;
    }

    /** A cumulative ticker that keeps its last value once the store stops answering (closed). */
    private static final class LastValue {
        private final StoreStats stats;
        private final String ticker;
        private final AtomicLong last = new AtomicLong();

        LastValue(StoreStats stats, String ticker) {
            this.stats = stats;
            this.ticker = ticker;
        }

        double read() {
            OptionalLong now = stats.ticker(ticker);
            if (now.isPresent()) {
                last.set(now.getAsLong());
            }
            return last.get();
        }
    }
}
