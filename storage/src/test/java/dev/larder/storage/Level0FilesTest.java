package dev.larder.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class Level0FilesTest {

    private static final Duration FILLING = Duration.ofSeconds(10);
    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);

    @Test
    void flushesAddFilesAndCompactionsTakeTheirInputsAway() {
        Level0Files level0 = new Level0Files(3, FILLING, now::get);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        assertFalse(level0.crowded());
        level0.flushed("/data/000014.sst");
        assertTrue(level0.crowded());
        // An L0 -> L6 compaction names its L6 input too, which was never counted.
        level0.compacted(List.of("/data//000010.sst", "/data/000012.sst", "/data/000009.sst"),
                List.of("/data/000015.sst"), 6);
        assertEquals(1, level0.count());
        assertFalse(level0.crowded());
    }

    @Test
    void anIntraLevel0CompactionLeavesItsOutputInLevel0() {
        Level0Files level0 = new Level0Files(10, FILLING, now::get);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        level0.compacted(List.of("/data/000010.sst", "/data/000012.sst"), List.of("/data/000013.sst"), 0);
        assertEquals(1, level0.count());
    }

    @Test
    void levelZeroStopsCountingAsCrowdedOnceFlushesStopComing() {
        Level0Files level0 = new Level0Files(2, FILLING, now::get);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        now.addAndGet(FILLING.toNanos() - 1);
        assertTrue(level0.crowded(), "a flush came within the window");
        now.addAndGet(1);
        assertFalse(level0.crowded(), "no flush for the whole window: a read phase, nothing piles up");
        assertEquals(2, level0.count());
        level0.flushed("/data/000014.sst");
        assertTrue(level0.crowded(), "flushes came again");
    }

    @Test
    void anIntraLevel0CompactionAloneDoesNotMakeLevelZeroFill() {
        Level0Files level0 = new Level0Files(1, FILLING, now::get);
        level0.compacted(List.of("/data/000010.sst"), List.of("/data/000013.sst"), 0);
        assertEquals(1, level0.count());
        assertFalse(level0.crowded());
    }
}
