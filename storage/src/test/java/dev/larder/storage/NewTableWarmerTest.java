package dev.larder.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDB;

/**
 * Which table files the warmer reads, when, and from which key, against the level-0 count its flush and compaction
 * events give it. The reads here record what they were asked for; {@code RocksDbStoreTest} reads real files.
 */
class NewTableWarmerTest {

    @BeforeAll
    static void loadRocksDb() {
        // The warmer is a RocksDB event listener, a native object; alone, this class would be the first to make one.
        RocksDB.loadLibrary();
    }

    /** Slowdown trigger 10: level 0 is crowded from 5 files (while flushes come) and urgent from 7. */
    private final NewTableWarmer warmer = new NewTableWarmer(1 << 30, false, 10);
    private final List<String> reads = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stop() throws InterruptedException {
        warmer.stop();
        warmer.awaitStopped(5_000);
    }

    @Test
    void anOutputWhoseReadStoppedWhenLevelZeroTurnedUrgentIsReadOnAfterInstallationFromWhereItStopped()
            throws Exception {
        warmer.start((file, fromKey, stop) -> {
            if (!file.contains("/db/00004")) {
                return null; // a flush's file
            }
            reads.add(file + " from '" + new String(fromKey, UTF_8) + "'");
            if (file.endsWith("000047.sst")) {
                // Flushes come while the compaction's thread reads its output, until level 0 is urgent.
                for (int flush = 1; flush <= 7; flush++) {
                    warmer.flushed("/db/00010" + flush + ".sst", 1);
                }
                return stop.getAsBoolean() ? "m".getBytes(UTF_8) : null;
            }
            return null;
        }, () -> false);

        warmer.readBeforeInstall("/db/000047.sst");
        warmer.readBeforeInstall("/db/000048.sst");
        reads.clear();
        warmer.compacted(List.of(), List.of("/db/000047.sst", "/db/000048.sst", "/db/000049.sst"), 6, () -> 1, true);
        awaitReads(2);

        // 48 was read whole before installation; 49 never began (its job's thread found level 0 urgent).
        assertEquals(List.of("/db/000047.sst from 'm'", "/db/000049.sst from ''"), reads);
        assertEquals(1, warmer.filesWarmedBeforeInstall());
    }

    @Test
    void aCompactionThatFailedLeavesItsOutputsAndTheirStopKeysBehind() throws Exception {
        warmer.start((file, fromKey, stop) -> {
            reads.add(file + " from '" + new String(fromKey, UTF_8) + "'");
            return file.endsWith("000047.sst") ? "m".getBytes(UTF_8) : null;
        }, () -> false);
        warmer.readBeforeInstall("/db/000047.sst");
        reads.clear();

        warmer.compacted(List.of(), List.of("/db/000047.sst"), 6, () -> 1, false);
        // RocksDB numbers files once: a later job's output of that name would be a new file, read from its start.
        warmer.compacted(List.of(), List.of("/db/000047.sst"), 6, () -> 1, true);
        awaitReads(1);

        assertEquals(List.of("/db/000047.sst from ''"), reads);
    }

    @Test
    void aFlushsFileReadWaitsWhileTheFlushesAreBehindThenGoesOnFromWhereItStopped() throws Exception {
        AtomicBoolean behind = new AtomicBoolean();
        warmer.start((file, fromKey, stop) -> {
            reads.add(file + " from '" + new String(fromKey, UTF_8) + "'");
            if (fromKey.length == 0) {
                behind.set(true); // memtables fill up while the first part is read
                return stop.getAsBoolean() ? "m".getBytes(UTF_8) : null;
            }
            return null;
        }, behind::get);

        warmer.flushed("/db/000101.sst", 1);
        awaitReads(1);
        Thread.sleep(5 * NewTableWarmer.FLUSHES_CHECK.toMillis());
        assertEquals(List.of("/db/000101.sst from ''"), reads);
        assertEquals(0, warmer.warmedJobs());

        behind.set(false);
        awaitReads(2);
        assertEquals(List.of("/db/000101.sst from ''", "/db/000101.sst from 'm'"), reads);
        assertEquals(1, warmer.pausesForFlushes());
        // Counted after the read returns, a step after the list saw it: wait for the count itself.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (warmer.warmedJobs() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(1, warmer.warmedJobs());
    }

    @Test
    void aReadWaitingForTheFlushesEndsWhenTheWarmerStops() throws Exception {
        warmer.start((file, fromKey, stop) -> {
            reads.add(file + " from '" + new String(fromKey, UTF_8) + "'");
            return stop.getAsBoolean() ? "m".getBytes(UTF_8) : null;
        }, () -> true);

        warmer.flushed("/db/000101.sst", 1);
        awaitReads(1);
        warmer.stop();

        assertTrue(warmer.awaitStopped(5_000));
        assertEquals(List.of("/db/000101.sst from ''"), reads);
        assertEquals(0, warmer.warmedJobs());
    }

    /** Waits for the warmer's thread to have made {@code count} reads, then a little longer for any it should not. */
    private void awaitReads(int count) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (reads.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        Thread.sleep(50);
    }
}
