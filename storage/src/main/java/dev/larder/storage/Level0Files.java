package dev.larder.storage;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The level-0 table files this process has seen flushed and not yet seen compacted away, counted from RocksDB's
 * events, so an event listener can tell without calling into the database whether level 0 is filling up.
 *
 * <p>Why: reading a compaction's output into the cache before the compaction installs it makes the compaction take
 * longer, and level-0 files pile up meanwhile; at {@code level0_slowdown_writes_trigger} files RocksDB slows every
 * write down. Files that were there when the store opened are not counted, so after a restart the count is low
 * until those are compacted.
 */
final class Level0Files {

    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private final int crowdedAt;

    /** {@code crowdedAt}: the count from which {@link #crowded()} is true. */
    Level0Files(int crowdedAt) {
        this.crowdedAt = crowdedAt;
    }

    /** A flush wrote {@code file} to level 0. */
    void flushed(String file) {
        names.add(NewTableWarmer.nameOf(file));
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

    boolean crowded() {
        return names.size() >= crowdedAt;
    }
}
