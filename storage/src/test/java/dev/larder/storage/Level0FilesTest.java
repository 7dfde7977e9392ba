package dev.larder.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
    @Timeout(20)
    void aWaitOnALevelZeroThatIsNotCrowdedEndsAtOnce() throws InterruptedException {
        Level0Files level0 = new Level0Files(2, 100, FILLING, now::get);
        level0.flushed("/data/000010.sst");
        assertTrue(level0.awaitSettled(), "one file, below crowded");
        level0.flushed("/data/000012.sst");
        now.addAndGet(FILLING.toNanos());
        assertTrue(level0.awaitSettled(), "crowded by count, but the last flush is a window old");
    }

    @Test
    @Timeout(20)
    void aWaitEndsSettledOnceTheWindowPassesWithoutAFlush() throws InterruptedException {
        Duration window = Duration.ofMillis(300);
        Level0Files level0 = new Level0Files(1, 100, window, System::nanoTime);
        level0.flushed("/data/000010.sst");
        long start = System.nanoTime();
        assertTrue(level0.awaitSettled());
        long waited = System.nanoTime() - start;
        assertTrue(waited >= window.toNanos() / 2, "it did not wait for the window");
        assertTrue(waited < window.toNanos() * 50, "it waited far past the window");
    }

    @Test
    @Timeout(20)
    void aFlushDuringTheWaitDoesNotEndItWhileLevelZeroIsBelowUrgent() throws Exception {
        Level0Files level0 = new Level0Files(2, 100, Duration.ofHours(1), System::nanoTime);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        Waiter waiter = Waiter.start(level0);
        try {
            level0.flushed("/data/000014.sst");
            assertNull(waiter.result(1), "a flush below urgent ended the wait (the compaction would install cold)");
            level0.compacted(List.of("/data/000010.sst", "/data/000012.sst", "/data/000014.sst"),
                    List.of("/data/000015.sst"), 6);
            assertEquals(Boolean.TRUE, waiter.result(10), "the compaction that ended the crowding");
        } finally {
            level0.release();
        }
    }

    @Test
    @Timeout(20)
    void aFlushThatMakesLevelZeroUrgentEndsTheWaitNotSettled() throws Exception {
        Level0Files level0 = new Level0Files(1, 3, Duration.ofHours(1), System::nanoTime);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        assertEquals(Boolean.FALSE, Waiter.endedBy(level0, () -> level0.flushed("/data/000014.sst")));
    }

    @Test
    @Timeout(20)
    void aWaitOnAnUrgentLevelZeroEndsAtOnceNotSettled() throws InterruptedException {
        Level0Files level0 = new Level0Files(1, 2, Duration.ofHours(1), System::nanoTime);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        assertFalse(level0.awaitSettled());
    }

    @Test
    @Timeout(20)
    void aCompactionThatEndsTheCrowdingEndsTheWaitSettled() throws Exception {
        Level0Files level0 = new Level0Files(2, 100, Duration.ofHours(1), System::nanoTime);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        assertEquals(Boolean.TRUE, Waiter.endedBy(level0, () -> level0.compacted(
                List.of("/data/000010.sst", "/data/000012.sst"), List.of("/data/000013.sst"), 6)));
    }

    @Test
    @Timeout(20)
    void releaseEndsAWaitUnderWayAndEveryLaterOne() throws Exception {
        Level0Files level0 = new Level0Files(1, 100, Duration.ofHours(1), System::nanoTime);
        level0.flushed("/data/000010.sst");
        assertEquals(Boolean.FALSE, Waiter.endedBy(level0, level0::release));
        assertFalse(level0.awaitSettled(), "a wait that begins after the release");
    }

    /** A thread in {@link Level0Files#awaitSettled()}, started and seen waiting before {@link #start} returns. */
    private static final class Waiter {
        private final Thread thread;
        private final AtomicReference<Boolean> result = new AtomicReference<>();

        private Waiter(Level0Files level0) {
            thread = new Thread(() -> {
                try {
                    result.set(level0.awaitSettled());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "level0-waiter");
            thread.setDaemon(true);
        }

        /**
         * What {@link Level0Files#awaitSettled()} returned when {@code event} ended a wait already under way (null
         * if it had not within 10 s); the level is released afterwards, so no waiter outlives the test.
         */
        static Boolean endedBy(Level0Files level0, Runnable event) throws InterruptedException {
            Waiter waiter = start(level0);
            try {
                event.run();
                return waiter.result(10);
            } finally {
                level0.release();
            }
        }

        private static Waiter start(Level0Files level0) throws InterruptedException {
            Waiter waiter = new Waiter(level0);
            waiter.thread.start();
            // TIMED_WAITING inside awaitSettled's timed wait: the state the event under test must end.
            while (waiter.thread.getState() != Thread.State.TIMED_WAITING) {
                assertTrue(waiter.thread.isAlive(), "the wait ended before anything ended it");
                Thread.sleep(5);
            }
            return waiter;
        }

        private Boolean result(int seconds) throws InterruptedException {
            thread.join(seconds * 1000L);
            return result.get();
        }
    }
}
