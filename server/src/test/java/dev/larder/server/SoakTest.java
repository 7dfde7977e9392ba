package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.storage.RocksDbStore;
import dev.larder.storage.StoreOptions;
import io.netty.util.ResourceLeakDetector;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long mixed run to report, not a CI test: only runs with {@code -Dlarder.soak.minutes=N}. Open-loop load (60% GET,
 * 25% PUT of 1 KiB of incompressible bytes, 5% DELETE, 10% ten-key ranges over {@code larder.soak.keys} keys, default 500k) at
 * {@code larder.soak.rate} requests per second (default: half the capacity measured at the start) against a server
 * with default options and a real RocksDB. Every 10 s it samples throughput, latency (p50/p99/max from the intended
 * send time), RSS, heap after the last GC and RocksDB's compaction figures (pending compaction bytes, write stalls), printing a line and writing {@code target/soak.csv}. At
 * the end it checks that the last third looks like the first: throughput within 5%, p99 not blown up, RSS and the
 * live heap not growing, no write stalls and no compaction backlog that keeps climbing.
 */
@EnabledIfSystemProperty(named = "larder.soak.minutes", matches = "\\d+(\\.\\d+)?")
class SoakTest {

    private static final double MINUTES = Double.parseDouble(System.getProperty("larder.soak.minutes", "0"));
    private static final int KEYS = Integer.getInteger("larder.soak.keys", 500_000);
    private static final double WINDOW_SECONDS = 10;
    private static final long MiB = 1 << 20;

    @TempDir
    Path dir;

    record Sample(double minute, double offered, double goodput, long dropped, long other, double p50, double p99,
                  double max, long rssMiB, long heapMiB, long heapAfterGcMiB, long pendingCompactionMiB,
                  long compactionPending, long sstMiB, long liveMiB, long memtableMiB, long runningCompactions,
                  long stallMillis) {
    }

    @Test
    void mixedLoadStaysFlat() throws Exception {
        // Measure what production runs: `larder serve` turns leak tracking off (the build's paranoid level costs
        // several times the throughput and would make this a soak of the detector).
        ResourceLeakDetector.Level buildLevel = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        try {
            soak();
        } finally {
            ResourceLeakDetector.setLevel(buildLevel);
        }
    }

    private void soak() throws Exception {
        RocksDbStore store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db")));
        LarderServer server = LarderServer.start(ServerOptions.builder(Runtime.getRuntime().availableProcessors())
                .port(0).build(), store, ServerObserver.NOOP);
        List<Sample> samples = new ArrayList<>();
        Path csv = Path.of("target", "soak.csv");
        try (OpenLoopClient load = new OpenLoopClient(server.localAddress(), 64, 16, KEYS, 1024,
                new int[] {60, 25, 5, 10})) {
            long t0 = System.nanoTime();
            load.preload();
            System.out.printf("soak: preloaded %d keys in %.0f s; %s; leak detection %s%n", KEYS,
                    (System.nanoTime() - t0) / 1e9, server.describe(), ResourceLeakDetector.getLevel());
            load.closedLoop("warm-up", 32, 10);
            double capacity = load.closedLoop("capacity", 32, 10).goodput();
            double rate = Double.parseDouble(System.getProperty("larder.soak.rate", String.valueOf(capacity / 2)));
            System.out.printf("soak: capacity %.0f req/s (closed loop, 32 in flight); offering %.0f req/s for %.1f "
                    + "minutes%n", capacity, rate, MINUTES);
            Files.createDirectories(csv.getParent());
            try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
                out.println(String.join(",", Arrays.stream(Sample.class.getRecordComponents())
                        .map(c -> c.getName()).toList()));
                long start = System.nanoTime();
                while ((System.nanoTime() - start) / 60e9 < MINUTES) {
                    OpenLoopClient.Phase w = load.run("window", rate, WINDOW_SECONDS);
                    Sample s = new Sample((System.nanoTime() - start) / 60e9, w.offered(), w.goodput(), w.dropped,
                            w.other + w.closed + w.rejected, w.okMillis(50), w.okMillis(99), w.okMillis(100),
                            rssMiB(), ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / MiB,
                            heapAfterLastGc() / MiB, prop(store, "rocksdb.estimate-pending-compaction-bytes") / MiB,
                            prop(store, "rocksdb.compaction-pending"), prop(store, "rocksdb.total-sst-files-size") / MiB,
                            prop(store, "rocksdb.estimate-live-data-size") / MiB,
                            prop(store, "rocksdb.cur-size-all-mem-tables") / MiB,
                            prop(store, "rocksdb.num-running-compactions"),
                            store.stats().ticker("STALL_MICROS").orElse(-1) / 1000);
                    samples.add(s);
                    System.out.println("soak: " + s);
                    out.println(Arrays.stream(Sample.class.getRecordComponents()).map(c -> {
                        try {
                            Object v = c.getAccessor().invoke(s);
                            return v instanceof Double d ? String.format("%.2f", d) : String.valueOf(v);
                        } catch (ReflectiveOperationException e) {
                            throw new IllegalStateException(e);
                        }
                    }).reduce((a, b) -> a + "," + b).orElse(""));
                    out.flush();
                }
            }
        } finally {
            server.close();
            store.close();
        }
        int third = Math.max(1, samples.size() / 3);
        List<Sample> first = samples.subList(0, third);
        List<Sample> last = samples.subList(samples.size() - third, samples.size());
        System.out.printf("soak: first third vs last third: goodput %.0f vs %.0f req/s, p99 %.1f vs %.1f ms, "
                        + "RSS %d vs %d MiB, heap after GC %d vs %d MiB, pending compaction %d vs %d MiB, "
                        + "write stalls %d ms in all%n",
                median(first, Sample::goodput), median(last, Sample::goodput), median(first, Sample::p99),
                median(last, Sample::p99), (long) median(first, x -> x.rssMiB()), (long) median(last, x -> x.rssMiB()),
                (long) median(first, x -> x.heapAfterGcMiB()), (long) median(last, x -> x.heapAfterGcMiB()),
                (long) median(first, x -> x.pendingCompactionMiB()), (long) median(last, x -> x.pendingCompactionMiB()),
                samples.get(samples.size() - 1).stallMillis());
        assertTrue(median(last, Sample::goodput) >= 0.95 * median(first, Sample::goodput), "throughput fell");
        assertTrue(median(last, Sample::p99) <= 2 * median(first, Sample::p99) + 10, "p99 climbed");
        assertTrue(median(last, x -> x.rssMiB()) <= 1.2 * median(first, x -> x.rssMiB()) + 64, "RSS grew");
        assertTrue(median(last, x -> x.heapAfterGcMiB()) <= 1.5 * median(first, x -> x.heapAfterGcMiB()) + 32,
                "live heap grew");
        assertTrue(median(last, x -> x.pendingCompactionMiB()) <= 2 * median(first, x -> x.pendingCompactionMiB()) + 64,
                "compaction fell behind");
        assertEquals(0, samples.stream().mapToLong(Sample::other).sum(), "answers other than 2xx/404");
    }

    private interface Field {
        double of(Sample s);
    }

    private static double median(List<Sample> samples, Field f) {
        double[] v = samples.stream().mapToDouble(f::of).sorted().toArray();
        return v[v.length / 2];
    }

    private static long prop(RocksDbStore store, String name) {
        return store.stats().property(name).orElse(-1);
    }

    private static long rssMiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux
        }
        return -1;
    }

    /** Heap in use right after the most recent collection (young or old): the live set, roughly. */
    private static long heapAfterLastGc() {
        long best = -1;
        long latest = -1;
        for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof com.sun.management.GarbageCollectorMXBean sun && sun.getLastGcInfo() != null
                    && sun.getLastGcInfo().getEndTime() > latest) {
                latest = sun.getLastGcInfo().getEndTime();
                best = sun.getLastGcInfo().getMemoryUsageAfterGc().values().stream()
                        .mapToLong(java.lang.management.MemoryUsage::getUsed).sum();
            }
        }
        return best;
    }
}
