package dev.larder.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.storage.RocksDbStore;
import dev.larder.storage.StoreOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RocksDB meters on a real store: they follow the engine while it is open and never touch it once closed. */
class RocksDbMetricsTest {

    @TempDir
    Path dir;

    @Test
    void gaugesAndTickersFollowTheStoreAndGoQuietAfterClose() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RocksDbStore store = RocksDbStore.open(StoreOptions.defaults(dir));
        RocksDbMetrics metrics = new RocksDbMetrics(store.stats());
        metrics.bindTo(registry);

        assertEquals(0, gauge(registry, "larder.rocksdb.keys.estimate"));
        assertEquals(StoreOptions.DEFAULT_BLOCK_CACHE_BYTES, gauge(registry, "larder.rocksdb.block.cache.capacity"));
        for (int i = 0; i < 500; i++) {
            store.put(("key" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        for (int i = 0; i < 50; i++) {
            store.get(("key" + i).getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(500, gauge(registry, "larder.rocksdb.keys.estimate"));
        assertTrue(gauge(registry, "larder.rocksdb.memtables.size") > 50_000);
        assertEquals(0, gauge(registry, "larder.rocksdb.write.stopped"));
        double written = counter(registry, "larder.rocksdb.written");
        assertTrue(written >= 500 * 100, "bytes written " + written);
        double read = counter(registry, "larder.rocksdb.read");
        assertTrue(read >= 50 * 100, "bytes read " + read);
        for (String name : new String[] {"larder.rocksdb.block.cache.usage", "larder.rocksdb.live.sst.size",
                "larder.rocksdb.compaction.pending", "larder.rocksdb.compactions.running",
                "larder.rocksdb.write.delayed.rate"}) {
            assertTrue(gauge(registry, name) >= 0, name);
        }
        assertTrue(counter(registry, "larder.rocksdb.write.stall") >= 0);
        assertTrue(counter(registry, "larder.rocksdb.block.cache.hits") >= 0);
        assertTrue(counter(registry, "larder.rocksdb.block.cache.misses") >= 0);
        assertTrue(counter(registry, "larder.rocksdb.row.cache.hits") >= 0);
        assertTrue(counter(registry, "larder.rocksdb.row.cache.misses") >= 0);

        store.close();
        assertTrue(Double.isNaN(gauge(registry, "larder.rocksdb.keys.estimate")));
        assertTrue(Double.isNaN(gauge(registry, "larder.rocksdb.memtables.size")));
        // A counter cannot go back: it keeps what it last read.
        assertEquals(written, counter(registry, "larder.rocksdb.written"));
        assertEquals(read, counter(registry, "larder.rocksdb.read"));
    }

    private static double gauge(SimpleMeterRegistry registry, String name) {
        return registry.get(name).gauge().value();
    }

    private static double counter(SimpleMeterRegistry registry, String name) {
        return registry.get(name).functionCounter().count();
    }
}
