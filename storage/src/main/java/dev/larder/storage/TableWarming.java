package dev.larder.storage;

/**
 * How a flush's or a compaction's new table files get into the block cache, so that lookups right after a write phase
 * or a compaction do not all miss it at once (a cached block is named by its file: a compaction's output is cold
 * however hot its inputs were).
 */
public enum TableWarming {
    /**
     * Each output file is read back through the cache after it is written ({@link NewTableWarmer}): a compaction's on
     * its own thread before installing it (from where that read stopped, after it, once level 0 nears the write
     * slowdown), a flush's on a thread of its own at nice 19, which no write waits for. Outputs larger than half the
     * block cache are left alone.
     */
    READ_BACK("read-back"),
    /**
     * RocksDB puts each data block into the cache as the flush or compaction writes it ({@link
     * BlockCachePrepopulation}), with no read back and no thread of its own: a compaction's output is cached when it
     * is installed, and the background uses less CPU in all. But the flush does its part on the path every write
     * waits for: its CPU doubled, and at nice 19 on a core the foreground keeps busy a flush took twice as long, so at
     * high write rates the memtables filled and RocksDB stopped writes (docs/performance.md, "Session 78"). For
     * servers whose background threads have CPU of their own.
     */
    AS_WRITTEN("as-written"),
    /** New files stay cold until lookups read their blocks. */
    OFF("off");

    private final String flag;

    TableWarming(String flag) {
        this.flag = flag;
    }

    public String flag() {
        return flag;
    }
}
