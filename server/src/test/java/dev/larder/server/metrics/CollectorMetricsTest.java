package dev.larder.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CollectorMetricsTest {

    @Test
    void everyCollectorOfThisJvmGetsATimerThatCountsItsCollections() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new CollectorMetrics().bindTo(registry);

        Collection<FunctionTimer> timers = registry.find("jvm.gc.pause").functionTimers();
        assertEquals(ManagementFactory.getGarbageCollectorMXBeans().size(), timers.size()
                + registry.find("jvm.gc.concurrent.phase.time").functionTimers().size());
        double before = timers.stream().mapToDouble(FunctionTimer::count).sum();
        System.gc();
        double after = timers.stream().mapToDouble(FunctionTimer::count).sum();
        assertTrue(after > before, "collections counted: " + before + " then " + after);
        FunctionTimer major = registry.find("jvm.gc.pause").tag("action", "end of major GC").functionTimer();
        assertNotNull(major, "the full collection's collector is tagged as major");
        assertTrue(major.count() >= 1);
        assertTrue(major.totalTime(TimeUnit.SECONDS) >= 0);
    }

    @Test
    void allocationIsCountedAsItHappens() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new CollectorMetrics().bindTo(registry);
        FunctionCounter allocated = registry.get("jvm.gc.memory.allocated").functionCounter();

        double before = allocated.count();
        byte[][] kept = new byte[16][];
        for (int i = 0; i < kept.length; i++) {
            kept[i] = new byte[1 << 20];
        }
        double after = allocated.count();
        assertTrue(after - before >= 16 << 20, "16 MiB allocated, counted " + (after - before) + " bytes");
        assertEquals(16, kept.length);
    }

    @Test
    void theLongLivedPoolIsReported() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new CollectorMetrics().bindTo(registry);
        System.gc();

        assertTrue(registry.get("jvm.gc.live.data.size").gauge().value() > 0);
        assertTrue(registry.get("jvm.gc.max.data.size").gauge().value() != 0);
    }

    @Test
    void pauseKindsAreNamedAsTheJvmNamesThem() {
        assertEquals("end of minor GC", CollectorMetrics.action("Copy"));
        assertEquals("end of major GC", CollectorMetrics.action("MarkSweepCompact"));
        assertEquals("end of minor GC", CollectorMetrics.action("G1 Young Generation"));
        assertEquals("end of major GC", CollectorMetrics.action("G1 Old Generation"));
        assertEquals("end of minor GC", CollectorMetrics.action("PS Scavenge"));
        assertEquals("end of major GC", CollectorMetrics.action("PS MarkSweep"));
        assertEquals("end of minor GC", CollectorMetrics.action("ZGC Minor Pauses"));
        assertNull(CollectorMetrics.action("ZGC Cycles"));
        assertNull(CollectorMetrics.action("Shenandoah Cycles"));
        assertNull(CollectorMetrics.action("G1 Concurrent GC"));
    }

    @Test
    void theOldGenerationIsTheLongLivedPool() {
        var pool = CollectorMetrics.longLivedPool(ManagementFactory.getMemoryPoolMXBeans());
        assertTrue(pool.isPresent());
        String name = pool.map(MemoryPoolMXBean::getName).orElseThrow();
        assertFalse(name.toLowerCase().contains("eden") || name.toLowerCase().contains("survivor"), name);
    }
}
