package dev.larder.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The collectors' pauses and the heap's allocation, read from the JVM's counters when the registry is scraped,
 * under the names Micrometer's {@code JvmGcMetrics} gives them.
 *
 * <p>Why not {@code JvmGcMetrics}: it listens to every collection's JMX notification, and with any listener the JVM
 * builds each collection's {@code GcInfo} composite (memory before and after, per pool) on a service thread. On a
 * server pinned to one core that thread, and the JIT compiling its code, ran inside the request phases: 13-17 of
 * the 36-46 compilations inside a phase run were that code (docs/performance.md, "Session 36"). Counters read at
 * scrape time cost nothing between scrapes. What is given up: the pause {@code cause} tag, the pause maximum, and
 * the promoted-bytes counter.
 */
public final class CollectorMetrics implements MeterBinder {

    private static final String CONCURRENT_PHASE = "jvm.gc.concurrent.phase.time";

    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private final Optional<MemoryPoolMXBean> longLivedPool = longLivedPool(ManagementFactory.getMemoryPoolMXBeans());
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    @Override
    public void bindTo(MeterRegistry registry) {
        for (GarbageCollectorMXBean collector : collectors) {
            String action = action(collector.getName());
            FunctionTimer.builder(action == null ? CONCURRENT_PHASE : "jvm.gc.pause", collector,
                            GarbageCollectorMXBean::getCollectionCount,
                            GarbageCollectorMXBean::getCollectionTime, TimeUnit.MILLISECONDS)
                    .tag("gc", collector.getName())
                    .tag("action", action == null ? "concurrent cycle" : action)
                    .description(action == null ? "Time spent in concurrent phases"
                            : "Time spent in GC pauses, read from the collector's counters at scrape time")
                    .register(registry);
        }
        if (threads instanceof com.sun.management.ThreadMXBean counting && counting.isThreadAllocatedMemorySupported()
                && counting.isThreadAllocatedMemoryEnabled()) {
            FunctionCounter.builder("jvm.gc.memory.allocated", counting,
                            CollectorMetrics::allocatedBytes)
                    .baseUnit(BaseUnits.BYTES)
                    .description("Bytes allocated on the heap by all threads, live and ended")
                    .register(registry);
        }
        longLivedPool.ifPresent(pool -> {
            Gauge.builder("jvm.gc.live.data.size", pool, CollectorMetrics::usedAfterLastCollection)
                    .baseUnit(BaseUnits.BYTES)
                    .description("Size of the long-lived heap pool after its last collection")
                    .register(registry);
            Gauge.builder("jvm.gc.max.data.size", pool, p -> p.getUsage().getMax())
                    .baseUnit(BaseUnits.BYTES)
                    .description("Max size of the long-lived heap pool")
                    .register(registry);
        });
    }

    /**
     * The pause kind a collector's bean stands for, as the JVM's notifications name it, or {@code null} for a bean
     * that counts concurrent cycles rather than pauses (ZGC's and Shenandoah's "Cycles", G1's "Concurrent GC").
     */
    static String action(String collectorName) {
        String name = collectorName.toLowerCase(Locale.ROOT);
        if (name.contains("cycles") || name.contains("concurrent")) {
            return null;
        }
        boolean young = name.contains("young") || name.equals("copy") || name.contains("scavenge")
                || name.contains("parnew") || name.contains("minor");
        return young ? "end of minor GC" : "end of major GC";
    }

    /** The heap pool objects end up in: the old generation, or the one heap pool of a single-generation collector. */
    static Optional<MemoryPoolMXBean> longLivedPool(List<MemoryPoolMXBean> pools) {
        List<MemoryPoolMXBean> heap = pools.stream()
                .filter(pool -> pool.getType() == MemoryType.HEAP && pool.isCollectionUsageThresholdSupported())
                .toList();
        Optional<MemoryPoolMXBean> old = heap.stream()
                .filter(pool -> pool.getName().toLowerCase(Locale.ROOT).matches(".*(old|tenured).*"))
                .findFirst();
        return old.isPresent() || heap.size() != 1 ? old : Optional.of(heap.get(0));
    }

    private static double allocatedBytes(com.sun.management.ThreadMXBean threads) {
        long total = threads.getTotalThreadAllocatedBytes();
        return total < 0 ? Double.NaN : total;
    }

    private static double usedAfterLastCollection(MemoryPoolMXBean pool) {
        var usage = pool.getCollectionUsage();
        return usage == null ? Double.NaN : usage.getUsed();
    }
}
