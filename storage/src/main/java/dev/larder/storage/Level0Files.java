package dev.larder.storage;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The level-0 table files this process has seen flushed and not yet seen compacted away, and when the last flush came,
 * both from RocksDB's events, so an event listener can tell without calling into the database whether level 0 is
 * crowded and filling up.
 *
 * <p>Why: reading a compaction's output into the cache before the compaction installs it makes the compaction take
 * longer, and level-0 files pile up meanwhile; at {@code level0_slowdown_writes_trigger} files RocksDB slows every
 * write down. They pile up only while flushes keep coming, though: in a read phase flushes are rare, and there a
 * compaction installed cold cost every GET of its keys a miss (docs/performance.md, "Session 52": in 4 of 5 rounds a
 * compaction ended 17-33 s after the last flush with 20-21 level-0 files, and the seconds after its installation had
 * p99 39-938 ms). So level 0 counts as crowded only while a flush came within {@code filling}. Files that were there
 * when the store opened are not counted, so after a restart the count is low until those are compacted.
 */
final class Level0Files {

    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private final int crowdedAt;
    private final long fillingNanos;
    private final LongSupplier nanoClock;
    private volatile long lastFlushNanos;

    /**
     * {@code crowdedAt}: the count from which {@link #crowded()} is true while flushes come; {@code filling}: how long
     * after the last flush level 0 still counts as filling up.
     */
    Level0Files(int crowdedAt, Duration filling, LongSupplier nanoClock) {
        this.crowdedAt = crowdedAt;
        this.fillingNanos = filling.toNanos();
        this.nanoClock = nanoClock;
        this.lastFlushNanos = nanoClock.getAsLong() - fillingNanos;
    }

    /** A flush wrote {@code file} to level 0. */
    void flushed(String file) {
        names.add(NewTableWarmer.nameOf(file));
        lastFlushNanos = nanoClock.getAsLong();
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

    /** At least {@code crowdedAt} files, and flushes still adding more: holding a compaction up now piles them up. */
    boolean crowded() {
        return names.size() >= crowdedAt && nanoClock.getAsLong() - lastFlushNanos < fillingNanos;
    }
}
