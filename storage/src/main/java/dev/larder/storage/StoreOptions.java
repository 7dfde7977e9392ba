package dev.larder.storage;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How the store is opened.
 *
 * @param dataDir           directory holding the database; created when missing
 * @param blockCacheBytes   size of the shared block cache (data, index and filter blocks)
 * @param rowCacheBytes     size of the row cache (whole key-value pairs, for point lookups); 0 = none
 * @param syncWrites        {@code true}: fsync the write-ahead log before a write is acknowledged (survives a
 *                          machine crash); {@code false}: a write is acknowledged once it is in the WAL in the OS
 *                          page cache (survives a process crash)
 * @param statistics        collect engine tickers (a small cost on every operation)
 * @param yieldingBackground run RocksDB's flush and compaction threads at the lowest CPU priority (nice 19), so
 *                          that on a core they share with the event loops they use only the time the loops leave
 *                          idle instead of a fair half of it
 */
public record StoreOptions(Path dataDir, long blockCacheBytes, long rowCacheBytes, boolean syncWrites,
                           boolean statistics, boolean yieldingBackground) {

    public static final long DEFAULT_BLOCK_CACHE_BYTES = 128L << 20;
    public static final long DEFAULT_ROW_CACHE_BYTES = 64L << 20;

    public StoreOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        if (blockCacheBytes < 0) {
            throw new IllegalArgumentException("blockCacheBytes: " + blockCacheBytes + " (expected: >= 0)");
        }
        if (rowCacheBytes < 0) {
            throw new IllegalArgumentException("rowCacheBytes: " + rowCacheBytes + " (expected: >= 0)");
        }
    }

    /**
     * Defaults for {@code dataDir}: 128 MiB block cache, 64 MiB row cache, WAL without fsync, statistics on,
     * background work yielding to the foreground.
     */
    public static StoreOptions defaults(Path dataDir) {
        return new StoreOptions(dataDir, DEFAULT_BLOCK_CACHE_BYTES, DEFAULT_ROW_CACHE_BYTES, false, true, true);
    }
}
