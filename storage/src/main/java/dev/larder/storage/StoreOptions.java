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
 *                          page cache (survives a process crash). Also picks how a damaged log is recovered:
 *                          see {@link RocksDbStore#open}
 * @param statistics        collect engine tickers (a small cost on every operation)
 * @param yieldingBackground run RocksDB's flush and compaction threads at the lowest CPU priority (nice 19), so
 *                          that on a core they share with the event loops they use only the time the loops leave
 *                          idle instead of a fair half of it
 * @param writeBufferBytes  size of one memtable: once full it is flushed to an SST file and a new write-ahead log
 *                          begins, so it bounds the memtable memory and sets how often flushes (and, four
 *                          flushes later, compactions) happen
 * @param tableWarming      how a flush's and a compaction's output files get into the block cache, so the lookups
 *                          after a write phase do not all miss at once
 * @param memtables         how many memtables of {@code writeBufferBytes} may exist at once: one taking writes, the
 *                          others full and waiting for their flush; when all are full RocksDB stops every write until
 *                          a flush is done. Memtable memory is at most {@code memtables * writeBufferBytes}
 * @param blockCacheType    which cache implementation holds the data blocks
 * @param blockSizeBytes    uncompressed size of a table file's data block: the unit the block cache holds and a
 *                          cache miss reads; the smaller, the more entries each file's index has
 */
public record StoreOptions(Path dataDir, long blockCacheBytes, long rowCacheBytes, boolean syncWrites,
                           boolean statistics, boolean yieldingBackground, long writeBufferBytes,
                           TableWarming tableWarming, int memtables, BlockCacheType blockCacheType,
                           long blockSizeBytes) {

    public static final long DEFAULT_BLOCK_CACHE_BYTES = 128L << 20;
    /**
     * Off: a row-cache miss costs a lookup and an insert (about 1.5 us a GET over millions of keys), a hit saves about
     * 0.5 us, so it pays only above a hit ratio of about three quarters; reads spread over more keys than it holds,
     * as in a load test over what its write phase stored, get slower (docs/performance.md, "Session 19").
     */
    public static final long DEFAULT_ROW_CACHE_BYTES = 0;
    /**
     * With {@link #DEFAULT_MEMTABLES}, the 128 MiB that RocksDB's defaults (two of 64 MiB) allow, cut in four so that
     * three full memtables can wait for a flush instead of one (docs/performance.md, "Session 18").
     */
    public static final long DEFAULT_WRITE_BUFFER_BYTES = 32L << 20;
    /** The library's default; {@code larder serve --memtables auto} scales it with memory, 4 to 8. */
    public static final int DEFAULT_MEMTABLES = 4;
    /** One taking writes and one being flushed: with fewer, every flush would stop writes. */
    public static final int MIN_MEMTABLES = 2;
    /** Below this RocksDB spends its time flushing tiny files; 64 KiB is what its own tests go down to. */
    public static final long MIN_WRITE_BUFFER_BYTES = 64L << 10;

    /** Not {@link TableWarming#AS_WRITTEN}: see there why (docs/performance.md, "Session 78"). */
    public static final TableWarming DEFAULT_TABLE_WARMING = TableWarming.READ_BACK;
    public static final BlockCacheType DEFAULT_BLOCK_CACHE_TYPE = BlockCacheType.HYPER_CLOCK;
    /** RocksDB's default; see {@link RocksDbStore} for why it is not larger (docs/performance.md, "Session 7"). */
    public static final long DEFAULT_BLOCK_SIZE_BYTES = 4L << 10;
    /** Below this an index entry and a block's own overhead weigh as much as its keys. */
    public static final long MIN_BLOCK_SIZE_BYTES = 1L << 10;
    /** Above this a cache miss for one small value reads and decompresses a megabyte. */
    public static final long MAX_BLOCK_SIZE_BYTES = 1L << 20;

    public StoreOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(blockCacheType, "blockCacheType");
        Objects.requireNonNull(tableWarming, "tableWarming");
        if (blockCacheBytes < 0) {
            throw new IllegalArgumentException("blockCacheBytes: " + blockCacheBytes + " (expected: >= 0)");
        }
        if (rowCacheBytes < 0) {
            throw new IllegalArgumentException("rowCacheBytes: " + rowCacheBytes + " (expected: >= 0)");
        }
        if (writeBufferBytes < MIN_WRITE_BUFFER_BYTES) {
            throw new IllegalArgumentException("writeBufferBytes: " + writeBufferBytes + " (expected: >= "
                    + MIN_WRITE_BUFFER_BYTES + ")");
        }
        if (memtables < MIN_MEMTABLES) {
            throw new IllegalArgumentException("memtables: " + memtables + " (expected: >= " + MIN_MEMTABLES + ")");
        }
        if (blockSizeBytes < MIN_BLOCK_SIZE_BYTES || blockSizeBytes > MAX_BLOCK_SIZE_BYTES) {
            throw new IllegalArgumentException("block-size: " + blockSizeBytes + " (expected: " + MIN_BLOCK_SIZE_BYTES
                    + " to " + MAX_BLOCK_SIZE_BYTES + " bytes)");
        }
    }

    /** With {@value #DEFAULT_BLOCK_SIZE_BYTES}-byte data blocks. */
    public StoreOptions(Path dataDir, long blockCacheBytes, long rowCacheBytes, boolean syncWrites,
                        boolean statistics, boolean yieldingBackground, long writeBufferBytes,
                        TableWarming tableWarming, int memtables, BlockCacheType blockCacheType) {
        this(dataDir, blockCacheBytes, rowCacheBytes, syncWrites, statistics, yieldingBackground, writeBufferBytes,
                tableWarming, memtables, blockCacheType, DEFAULT_BLOCK_SIZE_BYTES);
    }

    /** With the default block cache type ({@link #DEFAULT_BLOCK_CACHE_TYPE}). */
    public StoreOptions(Path dataDir, long blockCacheBytes, long rowCacheBytes, boolean syncWrites,
                        boolean statistics, boolean yieldingBackground, long writeBufferBytes,
                        TableWarming tableWarming, int memtables) {
        this(dataDir, blockCacheBytes, rowCacheBytes, syncWrites, statistics, yieldingBackground, writeBufferBytes,
                tableWarming, memtables, DEFAULT_BLOCK_CACHE_TYPE);
    }

    /** With {@value #DEFAULT_MEMTABLES} memtables. */
    public StoreOptions(Path dataDir, long blockCacheBytes, long rowCacheBytes, boolean syncWrites,
                        boolean statistics, boolean yieldingBackground, long writeBufferBytes,
                        TableWarming tableWarming) {
        this(dataDir, blockCacheBytes, rowCacheBytes, syncWrites, statistics, yieldingBackground, writeBufferBytes,
                tableWarming, DEFAULT_MEMTABLES);
    }

    /** New table files warmed into the block cache as {@code larder serve} does by default. */
    public StoreOptions(Path dataDir, long blockCacheBytes, long rowCacheBytes, boolean syncWrites,
                        boolean statistics, boolean yieldingBackground, long writeBufferBytes) {
        this(dataDir, blockCacheBytes, rowCacheBytes, syncWrites, statistics, yieldingBackground, writeBufferBytes,
                DEFAULT_TABLE_WARMING);
    }

    /** With the default write buffer ({@value #DEFAULT_WRITE_BUFFER_BYTES} bytes). */
    public StoreOptions(Path dataDir, long blockCacheBytes, long rowCacheBytes, boolean syncWrites,
                        boolean statistics, boolean yieldingBackground) {
        this(dataDir, blockCacheBytes, rowCacheBytes, syncWrites, statistics, yieldingBackground,
                DEFAULT_WRITE_BUFFER_BYTES);
    }

    /**
     * Defaults for {@code dataDir}: 128 MiB block cache, no row cache, WAL without fsync, statistics on,
     * background work yielding to the foreground, four memtables of 32 MiB, new table files read back into the
     * block cache, the block cache a {@link BlockCacheType#HYPER_CLOCK} one.
     */
    public static StoreOptions defaults(Path dataDir) {
        return new StoreOptions(dataDir, DEFAULT_BLOCK_CACHE_BYTES, DEFAULT_ROW_CACHE_BYTES, false, true, true);
    }
}
