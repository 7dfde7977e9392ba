package dev.larder.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class Level0FilesTest {

    private static final Duration FILLING = Duration.ofSeconds(10);
    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);

    @Test
    void flushesAddFilesAndCompactionsTakeTheirInputsAway() {
        Level0Files level0 = new Level0Files(3, 100, FILLING, now::get);
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
        Level0Files level0 = new Level0Files(10, 100, FILLING, now::get);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        level0.compacted(List.of("/data/000010.sst", "/data/000012.sst"), List.of("/data/000013.sst"), 0);
        assertEquals(1, level0.count());
    }

    @Test
    void levelZeroStopsCountingAsCrowdedOnceFlushesStopComing() {
        Level0Files level0 = new Level0Files(2, 100, FILLING, now::get);
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
        Level0Files level0 = new Level0Files(1, 100, FILLING, now::get);
        level0.compacted(List.of("/data/000010.sst"), List.of("/data/000013.sst"), 0);
        assertEquals(1, level0.count());
        assertFalse(level0.crowded());
    }

    @Test
    void urgentCountsFilesWhetherOrNotFlushesCome() {
        Level0Files level0 = new Level0Files(1, 2, FILLING, now::get);
        level0.flushed("/data/000010.sst");
        assertFalse(level0.urgent());
        level0.flushed("/data/000012.sst");
        now.addAndGet(FILLING.toNanos());
        assertFalse(level0.crowded());
        assertTrue(level0.urgent(), "two files, the last flush a whole window ago");
        level0.compacted(List.of("/data/000010.sst"), List.of("/data/000013.sst"), 6);
        assertFalse(level0.urgent());
    }

    @Test
    void aWaitOnALevelZeroThatIsNotCrowdedEndsAtOnce() throws InterruptedException {
        Level0Files level0 = new Level0Files(2, 100, FILLING, now::get);
        level0.flushed("/data/000010.sst");
        assertTrue(level0.awaitSettled(), "one file, below crowded");
        level0.flushed("/data/000012.sst");
        now.addAndGet(FILLING.toNanos());
        assertTrue(level0.awaitSettled(), "crowded by count, but the last flush is a window old");
    }

    @Test
    void aWaitEndsSettledOnceTheWindowPassesWithoutAFlush() throws InterruptedException {
        Duration window = Duration.ofMillis(300);
        Level0Files level0 = new Level0Files(1, 100, window, System::nanoTime);
        level0.flushed("/data/000010.sst");
        long start = System.nanoTime();
        assertTrue(level0.awaitSettled());
        assertTrue(System.nanoTime() - start >= window.toNanos() / 2, "it did not wait for the window");
        assertFalse(level0.crowded());
    }

    @Test
    void aFlushDuringTheWaitEndsItNotSettled() throws Exception {
        Level0Files level0 = new Level0Files(1, 100, Duration.ofHours(1), System::nanoTime);
        level0.flushed("/data/000010.sst");
        CompletableFuture<Boolean> settled = CompletableFuture.supplyAsync(() -> awaitSettled(level0));
        waitUntilWaiting(settled);
        level0.flushed("/data/000012.sst");
        assertFalse(settled.get(10, TimeUnit.SECONDS));
    }

    @Test
    void releaseEndsEveryWaitNowAndLater() throws Exception {
        Level0Files level0 = new Level0Files(1, 100, Duration.ofHours(1), System::nanoTime);
        level0.flushed("/data/000010.sst");
        CompletableFuture<Boolean> settled = CompletableFuture.supplyAsync(() -> awaitSettled(level0));
        waitUntilWaiting(settled);
        level0.release();
        assertFalse(settled.get(10, TimeUnit.SECONDS));
        assertFalse(level0.awaitSettled(), "a wait that begins after the release");
    }

    private static boolean awaitSettled(Level0Files level0) {
        try {
            return level0.awaitSettled();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    // The wait has no observable start; a future still pending 200 ms in is taken to be waiting. If it were not yet,
    // the flush test would wait an hour and fail on its get(), and the release test checks a later wait as well.
    private static void waitUntilWaiting(CompletableFuture<Boolean> settled) throws InterruptedException {
        Thread.sleep(200);
        assertFalse(settled.isDone(), "the wait ended by itself");
    }
}
