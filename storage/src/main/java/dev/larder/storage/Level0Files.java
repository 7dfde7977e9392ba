package dev.larder.storage;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The level-0 table files this process has seen flushed and not yet seen compacted away, counted from RocksDB's
 * events, so an event listener can tell without calling into the database whether level 0 is filling up.
 *
 * <p>Why: reading a compaction's output into the cache before the compaction installs it makes the compaction take
 * longer, and level-0 files pile up meanwhile; at {@code level0_slowdown_writes_trigger} files RocksDB slows every
 * write down. Files that were there when the store opened are not counted, so after a restart the count is low
 * until those are compacted.
 *
 * <p>Only flushes add level-0 files, so a crowded level 0 that no flush has added to for {@link #QUIET} is not
 * filling up: between write phases a held compaction costs nothing. With four 32 MiB memtables, the write phases at
 * 70k PUT/s left 10-15 files behind, the GET phase after them found level 0 crowded, and a compaction's output
 * installed there was cold: 9-21k block-cache misses a second for 8 s, p99 53-88 ms (docs/performance.md,
 * "Session 18").
 */
final class Level0Files {

    /** Longer than a 32 MiB memtable takes to fill at the phase run's 70k PUT/s (4.7 s). */
    static final long QUIET = TimeUnit.SECONDS.toNanos(10);

    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private final int crowdedAt;
    private final LongSupplier nanoClock;
    private volatile long lastFlush;
    private volatile boolean flushedYet;

    /** {@code crowdedAt}: the count from which {@link #crowded()} is true while flushes keep coming. */
    Level0Files(int crowdedAt) {
        this(crowdedAt, System::nanoTime);
    }

    Level0Files(int crowdedAt, LongSupplier nanoClock) {
        this.crowdedAt = crowdedAt;
        this.nanoClock = nanoClock;
    }

    /** A flush wrote {@code file} to level 0. */
    void flushed(String file) {
        names.add(NewTableWarmer.nameOf(file));
        lastFlush = nanoClock.getAsLong();
        flushedYet = true;
    }

    /** A compaction read {@code inputs} (of any level) and wrote {@code outputs} to {@code outputLevel}. */
    void compacted(Collection<String> inputs, Collection<String> outputs, int outputLevel) {
        for (String input : inputs) {
            names.remove(NewTableWarmer.nameOf(input));
        }
        if (outputLevel == 0) {
            for (String output : outputs) {
                names.add(NewTableWarmer.nameOf(output));
            }
        }
    }

    int count() {
        return names.size();
    }

    /** At least {@code crowdedAt} files, and a flush added one within {@link #QUIET}. */
    boolean crowded() {
        return names.size() >= crowdedAt && flushedYet && nanoClock.getAsLong() - lastFlush < QUIET;
    }
}
