package dev.larder.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SlicedWorkTest {

    private final AtomicLong now = new AtomicLong(5_000_000_000L);
    private final List<Long> sleeps = new ArrayList<>();
    private final SlicedWork slices = new SlicedWork(Duration.ofNanos(100_000), Duration.ofNanos(500_000), now::get,
            nanos -> {
                sleeps.add(nanos);
                now.addAndGet(nanos);
            });

    @Test
    void sleepsOnlyOnceASliceIsUsedUp() {
        now.addAndGet(99_999);
        slices.checkpoint();
        assertEquals(List.of(), sleeps);
        now.addAndGet(1);
        slices.checkpoint();
        assertEquals(List.of(500_000L), sleeps);
    }

    @Test
    void aNewSliceStartsAfterEachSleep() {
        now.addAndGet(100_000);
        slices.checkpoint();
        now.addAndGet(60_000);
        slices.checkpoint();
        assertEquals(1, sleeps.size(), "60 us into the second slice");
        now.addAndGet(40_000);
        slices.checkpoint();
        assertEquals(2, sleeps.size());
    }

    @Test
    void aLongStepSleepsOnceNotOncePerSliceItCovered() {
        now.addAndGet(1_000_000);
        slices.checkpoint();
        slices.checkpoint();
        assertEquals(List.of(500_000L), sleeps);
    }
}
