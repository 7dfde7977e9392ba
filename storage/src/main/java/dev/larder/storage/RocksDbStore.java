package dev.larder.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.StampedLock;
import java.util.function.BooleanSupplier;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.CompressionType;
import org.rocksdb.DataBlockIndexType;
import org.rocksdb.Env;
import org.rocksdb.FlushOptions;
import org.rocksdb.HyperClockCache;
import org.rocksdb.LRUCache;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.Options;
import org.rocksdb.PerfLevel;
import org.rocksdb.Priority;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileReader;
import org.rocksdb.SstFileReaderIterator;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.Status;
import org.rocksdb.TableProperties;
import org.rocksdb.TickerType;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * {@link Store} on an embedded RocksDB. Owns every native handle it creates and releases them in reverse order of
 * creation on {@link #close()}.
 *
 * <p>Every operation holds a read stamp of {@link #lifecycle}; {@code close()} takes the write stamp. That makes a
 * call racing with shutdown fail with a {@link StoreException} instead of touching freed native memory, which in
 * RocksJava would crash the JVM. A {@link StampedLock} read stamp is one CAS and no thread-local bookkeeping.
 */
public final class RocksDbStore implements Store, StoreStats {

    static {
        RocksDB.loadLibrary();
    }

    /**
     * Each thread's buffers for {@link #getFromMemory} (the event loops call it for every GET they answer); shared by
     * every store of the process, so a closed store leaves none behind.
     */
    private static final ThreadLocal<DirectMemoryLookup> MEMORY_LOOKUPS =
            ThreadLocal.withInitial(DirectMemoryLookup::new);

    /**
     * Level-0 files that start a compaction into the level below (RocksDB's default: 4). Such a compaction rewrites
     * every file of that level its keys overlap, which for keys spread over the whole range is all of it, so fewer,
     * larger compactions rewrite the same data fewer times. With 16, 240 s of PUTs cost 4.7 s of compaction CPU and a
     * 6-file job still to come, against 23.3 s with 4; and the compactions the tail benchmark's write phases left
     * running into its read phases (2-6 s of CPU each, at nice 19 on the core the requests need) were gone from its
     * phases in four runs of six (docs/performance.md, "Session 40"). What it costs: a lookup of a key that is not in
     * level 0 passes every level-0 file's filter and table reader first, and ten files made a cached lookup 7.8-8.7
     * us against 5.3-5.4 us ("Session 81"; session 19's 0.1-0.5 us had every key in level 0, so a lookup stopped at
     * its file). Lowering it does not take those files away from a read phase at a fixed rate: with 8, the one
     * compaction (5.0-8.5 s of CPU) got 2-3% of the core the phases keep busy and ended after the last phase in all
     * five rounds, 59-253 s after it began ("Session 87").
     */
    static final int LEVEL0_COMPACTION_TRIGGER = 16;

    /**
     * Set on each thread once it has switched RocksDB's perf context off for itself. The perf level is per thread and
     * starts at "count": every lookup then adds to a dozen thread-local counters (each key comparison of the index
     * search among them), and a thread-local in a library loaded at run time is reached through {@code
     * __tls_get_addr}, about 3% of a cached lookup's CPU in a profile. Nothing here reads those counters; the
     * metrics come from {@link Statistics}, which this does not touch (docs/performance.md, "Session 72").
     */
    private static final ThreadLocal<Boolean> PERF_CONTEXT_OFF = new ThreadLocal<>();

    private final StampedLock lifecycle = new StampedLock();
    private final Set<Cursor> openCursors = ConcurrentHashMap.newKeySet();
    private final Statistics statistics;
    private final Cache blockCache;
    private final LRUCache rowCache;
    private final BloomFilter bloomFilter;
    private final TableWarming tableWarming;
    /** Only with {@link TableWarming#READ_BACK}. */
    private final NewTableWarmer warmer;
    /** Full memtables waiting for their flush from which the table warmer pauses: half of those there may be. */
    private final int flushesBehindAt;
    private final Options options;
    private final WriteOptions writeOptions;
    /** {@code no_slowdown}: a write that a stall would hold back fails at once; {@code null} with {@code --sync}. */
    private final WriteOptions noWaitWriteOptions;
    private final ReadOptions pointReadOptions;
    private final ReadOptions scanReadOptions;
    private final RocksDB db;
    private final String walRecoveryWarning;
    private volatile boolean closed;
    /** Set before {@link #close()} waits for the write stamp, so a cache warm-up in progress stops early. */
    private volatile boolean closing;

    private static Cache newBlockCache(BlockCacheType type, long bytes) {
        return switch (type) {
            // An estimated entry charge of 0 lets RocksDB size the table as entries arrive (its "auto" variant),
            // and -1 shard bits lets it pick the shards from the capacity. Its keys are the block cache's fixed
            // 16-byte ones, which is why the row cache (keys of any length) stays an LRU cache.
            case HYPER_CLOCK -> new HyperClockCache(bytes, 0, -1, false);
            case LRU -> new LRUCache(bytes);
        };
    }

    private RocksDbStore(StoreOptions storeOptions) throws RocksDBException {
        statistics = storeOptions.statistics() ? new Statistics() : null;
        if (statistics != null) {
            // Per-call timers cost more than the metrics are worth; tickers and histograms stay.
            statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
        }
        blockCache = newBlockCache(storeOptions.blockCacheType(), storeOptions.blockCacheBytes());
        rowCache = storeOptions.rowCacheBytes() > 0 ? new LRUCache(storeOptions.rowCacheBytes()) : null;
        bloomFilter = new BloomFilter(10, false);
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(blockCache)
                .setFilterPolicy(bloomFilter)
                // Index and filter blocks are loaded when a table file is opened and stay with its reader, outside
                // the block cache. In the cache, data blocks evicted them, and a point lookup then re-read and
                // re-checksummed a filter block of megabytes (one per 2M keys): right after a write phase GETs ran
                // at a third of the rate (docs/performance.md, "The tail at a fixed rate"). They cost about
                // 1.3 bytes per key of memory outside --block-cache.
                .setCacheIndexAndFilterBlocks(false)
                // 4 KiB data blocks by default (RocksDB's default; 16 KiB before): when a compaction finishes,
                // its output files replace the ones that held most keys, a cached block is named by its file, and
                // every lookup of those keys misses until its block is read again. A 4 KiB miss reads, checks and
                // decompresses a quarter of the bytes: GET phases at 25k/s after write phases had seconds at p99
                // 87-132 ms with 16 KiB and none above 33 ms with 4 KiB (docs/performance.md, "Session 7"); over
                // 10 M keys with a 128 MiB cache a GET cost 19% more CPU with 16 KiB. With everything cached,
                // 16 KiB cost about 5% less per GET at a fixed rate: the index, held with each table reader, has a
                // quarter of the entries, and its binary search is the largest part of a cached lookup ("Session 69").
                .setBlockSize(storeOptions.blockSizeBytes())
                // A hash index inside each data block turns the in-block binary search of a point lookup into
                // one probe; range scans still use the binary index.
                .setDataBlockIndexType(DataBlockIndexType.kDataBlockBinaryAndHash)
                .setDataBlockHashTableUtilRatio(0.75)
                // The index block stored as it is held in memory (with each table reader, uncompressed), so the
                // cache warmer can read the data blocks' positions from the file and load each block with one
                // seek instead of walking it key by key (DataBlockSeekKeys). It costs disk bytes only.
                .setEnableIndexCompression(false);
        int cores = Runtime.getRuntime().availableProcessors();
        options = new Options()
                .setCreateIfMissing(true)
                .setTableFormatConfig(table)
                .setIncreaseParallelism(Math.max(2, cores))
                .setMaxBackgroundJobs(Math.max(2, cores))
                // LZ4 at every level, the bottom included (ZSTD there before): a compaction into the bottom level
                // runs at nice 19 on the core the requests need, and every cache miss and table warm-up there
                // decompresses. With LZ4 a compaction cost 0.62-0.66 us of CPU per record against 0.81-0.87, and in
                // alternating phase runs the first GET phase after a write phase had p99 8.1 ms against 16.9 (medians
                // of 5 and 6 runs), for about 1.5x the bytes at the bottom level on the benchmark's values
                // (docs/performance.md, "Session 22").
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setBottommostCompressionType(CompressionType.LZ4_COMPRESSION)
                // A small bloom filter over each memtable answers most misses without a binary search.
                .setMemtablePrefixBloomSizeRatio(0.02)
                .setMemtableWholeKeyFiltering(true)
                .setWriteBufferSize(storeOptions.writeBufferBytes())
                // RocksDB stops every write once all memtables are full. A flush at nice 19 on a busy core took
                // 5-11 s for 64 MiB, about as long as PUTs at 70k/s took to fill the next one, and with RocksDB's
                // two memtables each stop was a second at p99 43-205 ms (docs/performance.md, "Session 17").
                .setMaxWriteBufferNumber(storeOptions.memtables())
                // Twice RocksDB's level-0 triggers (20 slowdown, 36 stop). A compaction at nice 19 on a full core
                // gets about 2% of it: one needing 2.2 s of CPU took 104 s, and with a level-0 file per 32 MiB
                // memtable flushed, 30 s of PUTs at 70k/s left 9-16 of them. From half the slowdown trigger on, while
                // flushes come, NewTableWarmer stops reading a compaction's output before it is installed, and every
                // GET then missed the cache for seconds (5-23k misses/s, a second at p99 35 ms: docs/performance.md,
                // "Session 19"; "Session 52" for the flushes). From 0.7 of it on a compaction is never held
                // ("Session 53").
                .setLevel0FileNumCompactionTrigger(LEVEL0_COMPACTION_TRIGGER)
                .setLevel0SlowdownWritesTrigger(40)
                .setLevel0StopWritesTrigger(56)
                .setBytesPerSync(1 << 20)
                .setKeepLogFileNum(5);
        if (rowCache != null) {
            // A hit answers a point lookup without the bloom probe, the index search and the block parse that a
            // block-cache hit still costs (1.7-2.9 us against 3.7-6.9 us per lookup, measured). Entries are keyed
            // by SST file, so a newer value in a memtable or a newer file always wins. Every table file a lookup
            // checks is probed in it first, and a miss inserts, so it is off unless asked for (StoreOptions).
            options.setRowCache(rowCache);
        }
        if (statistics != null) {
            options.setStatistics(statistics);
        }
        tableWarming = storeOptions.tableWarming();
        flushesBehindAt = Math.max(1, storeOptions.memtables() / 2);
        // Half the block cache at most, so warming one compaction's output never evicts most of what is in use.
        warmer = tableWarming == TableWarming.READ_BACK
                ? new NewTableWarmer(storeOptions.blockCacheBytes() / 2, storeOptions.yieldingBackground(),
                        options.level0SlowdownWritesTrigger()) : null;
        if (warmer != null) {
            options.setListeners(List.of(warmer));
        }
        if (storeOptions.yieldingBackground()) {
            // Flushes (HIGH pool) and compactions (LOW pool) run at nice 19. At equal priority the scheduler gives a
            // one-second compaction half of a core the event loop also needs, and a server at 75% load falls
            // behind by hundreds of ms (docs/performance.md, "The tail at a fixed rate"). The setting belongs to
            // the process-wide default Env, which is the one this store's options use.
            Env env = Env.getDefault();
            env.lowerThreadPoolCPUPriority(Priority.LOW);
            env.lowerThreadPoolCPUPriority(Priority.HIGH);
        }
        writeOptions = new WriteOptions().setSync(storeOptions.syncWrites());
        // An fsync is a wait no write option avoids, so with --sync no write completes without waiting.
        noWaitWriteOptions = storeOptions.syncWrites() ? null : new WriteOptions().setNoSlowdown(true);
        pointReadOptions = new ReadOptions();
        // A range scan would evict the hot point-lookup working set from the cache; it reads around it instead.
        scanReadOptions = new ReadOptions().setFillCache(false);
        String path = storeOptions.dataDir().toString();
        try {
            if (!storeOptions.syncWrites()) {
                // Without --sync a power cut may cut the log anywhere after its last sync (a memtable flush):
                // replay up to the first damaged record and stop there, which is the latest consistent state
                // that survived. What that loses is the documented price of not syncing (docs/reliability.md).
                options.setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery);
                db = RocksDB.open(options, path);
                walRecoveryWarning = null;
            } else {
                Opened opened = openSynced(options, path);
                db = opened.db();
                walRecoveryWarning = opened.walRecoveryWarning();
            }
        } catch (RocksDBException e) {
            releaseOptions();
            throw e;
        }
        if (warmer != null) {
            warmer.start(this::readIntoBlockCache, this::flushesBehind);
        }
        if (tableWarming == TableWarming.AS_WRITTEN) {
            try {
                BlockCachePrepopulation.enableForFlushesAndCompactions(db);
            } catch (RocksDBException | RuntimeException e) {
                db.close();
                releaseOptions();
                throw e;
            }
        }
    }

    /**
     * Reads every block of a table file from {@code fromKey} on (empty: from the first) through this store's block
     * cache (an {@link SstFileReader} with the store's own table options: a cached block is named by the file's
     * identity recorded in its properties, not by the reader, so the database's lookups find them). Returns null once
     * it has read to the end (or the file is gone), else the key to resume from. Called on the warmer's and on
     * compaction threads; it only tries for a read stamp, and stops within 64 blocks (4096 keys when it walks the
     * file key by key) once {@link #close()} has begun, which waits for it, or {@code stop} is true.
     */
    byte[] readIntoBlockCache(String tableFile, byte[] fromKey, BooleanSupplier stop) {
        if (closing) {
            return fromKey;
        }
        long stamp = lifecycle.tryReadLock();
        if (stamp == 0) {
            return fromKey;
        }
        try (ReadOptions read = new ReadOptions()) {
            // Checked before the reader is made: once closed, the options it would be made from are released.
            if (closed || stop.getAsBoolean()) {
                return fromKey;
            }
            try (SstFileReader reader = new SstFileReader(options)) {
                reader.open(tableFile);
                Optional<List<byte[]>> seekKeys = seekKeysOf(reader, tableFile);
                try (SstFileReaderIterator blocks = reader.newIterator(read)) {
                    return seekKeys.isPresent() ? seekEachBlock(blocks, seekKeys.get(), fromKey, stop)
                            : walkEachKey(blocks, fromKey, stop);
                }
            }
        } catch (RocksDBException e) {
            // A later compaction may have deleted the file already: nothing left to warm.
            return null;
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    /**
     * One key per data block of the table (see {@link DataBlockSeekKeys}), or empty when its index is not one that
     * reads, or does not name as many blocks as its properties count.
     */
    private static Optional<List<byte[]>> seekKeysOf(SstFileReader reader, String tableFile) throws RocksDBException {
        TableProperties table = reader.getTableProperties();
        if (table.getIndexPartitions() != 0) {
            return Optional.empty();
        }
        try {
            return DataBlockSeekKeys.read(Path.of(tableFile), table.getIndexKeyIsUserKey() != 0,
                    table.getIndexValueIsDeltaEncoded() != 0)
                    .filter(keys -> keys.size() == table.getNumDataBlocks());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** One seek per data block from the one holding {@code fromKey} on: each loads its block through the cache. */
    private byte[] seekEachBlock(SstFileReaderIterator blocks, List<byte[]> seekKeys, byte[] fromKey,
            BooleanSupplier stop) {
        int next = firstAfter(seekKeys, fromKey);
        blocks.seek(fromKey);
        for (int block = next; block < seekKeys.size(); block++) {
            if (((block - next + 1) & 63) == 0 && (closing || stop.getAsBoolean())) {
                return seekKeys.get(block);
            }
            blocks.seek(seekKeys.get(block));
        }
        return null;
    }

    // The index of the first key in the ascending list greater than key (bytewise: this store's comparator).
    private static int firstAfter(List<byte[]> ascending, byte[] key) {
        int low = 0;
        int high = ascending.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (Arrays.compareUnsigned(ascending.get(middle), key) <= 0) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /** The walk for a table whose index does not read: key by key, two JNI calls each. */
    private byte[] walkEachKey(SstFileReaderIterator blocks, byte[] fromKey, BooleanSupplier stop) {
        long keys = 0;
        for (blocks.seek(fromKey); blocks.isValid(); blocks.next()) {
            if ((++keys & 4095) == 0 && (closing || stop.getAsBoolean())) {
                return blocks.key();
            }
        }
        return null;
    }

    /**
     * Flushes and compactions whose output was read into the block cache, those too large for it, and the compaction
     * output files among them that were read before the compaction installed them.
     */
    long[] tableWarmups() {
        return warmer == null ? new long[] {0, 0, 0}
                : new long[] {warmer.warmedJobs(), warmer.skippedJobs(), warmer.filesWarmedBeforeInstall()};
    }

    /**
     * Whether new table files get into the block cache: false when turned off, or when the read-back warming thread's
     * priority could not be lowered to nice 19 (then it does not run: see {@link NewTableWarmer}).
     */
    public boolean warmsNewTables() {
        return tableWarming == TableWarming.AS_WRITTEN || warmer != null && !warmer.unavailable();
    }

    /**
     * With --sync every acknowledged write was fsynced whole, so the log must replay without a flaw, with one
     * exception: a record cut off at the very end of a log was still being written when the process or the machine
     * died, so its fsync never returned and nobody was told it was stored. Point-in-time recovery would also stop
     * silently at a damaged record in the middle, dropping acknowledged writes behind it; that must refuse to open.
     * So: open strictly; only when that finds a flaw, retry accepting nothing but incomplete trailing records, and
     * say so.
     */
    private static Opened openSynced(Options options, String path) throws RocksDBException {
        options.setWalRecoveryMode(WALRecoveryMode.AbsoluteConsistency);
        try {
            return new Opened(RocksDB.open(options, path), null);
        } catch (RocksDBException strict) {
            Status status = strict.getStatus();
            if (status == null || status.getCode() != Status.Code.Corruption) {
                throw strict;
            }
            options.setWalRecoveryMode(WALRecoveryMode.TolerateCorruptedTailRecords);
            RocksDB db;
            try {
                db = RocksDB.open(options, path);
            } catch (RocksDBException tolerant) {
                tolerant.addSuppressed(strict);
                throw tolerant;
            }
            return new Opened(db, "the write-ahead log ended in an incomplete record, a write cut off by a crash "
                    + "before its fsync returned (so never acknowledged); dropped it. RocksDB said: "
                    + strict.getMessage());
        }
    }

    private record Opened(RocksDB db, String walRecoveryWarning) {
    }

    /**
     * Opens (creating when missing) the database in {@code options.dataDir()}, replaying its write-ahead log.
     *
     * <p>How a damaged log is replayed depends on {@link StoreOptions#syncWrites()}. Without sync: up to the first
     * damaged record (RocksDB's point-in-time recovery), since anything after the last sync may be lost or torn.
     * With sync: the log must be flawless, except that an incomplete record at the end of a log is dropped
     * (reported by {@link #walRecoveryWarning()}); any other damage refuses to open.
     *
     * @throws StoreException when the directory cannot be created, is locked by another process, or is corrupt
     */
    public static RocksDbStore open(StoreOptions options) {
        try {
            DurableDirectories.create(options.dataDir());
        } catch (IOException e) {
            throw new StoreException("open", "cannot create data directory " + options.dataDir() + ": " + e, e, false);
        }
        try {
            return new RocksDbStore(options);
        } catch (RocksDBException e) {
            String message = String.valueOf(e.getMessage());
            if (message.contains("LOCK")) {
                throw new StoreException("open", "data directory " + options.dataDir().toAbsolutePath()
                        + " is already in use by another process (" + message + ")", e, false);
            }
            throw wrap("open", e);
        }
    }

    @Override
    public byte[] get(byte[] key) {
        long stamp = enter("get");
        try {
            return db.get(pointReadOptions, key);
        } catch (RocksDBException e) {
            throw wrap("get", e);
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    /** One MultiGet: one JNI crossing and batched lookups (bloom, index, block cache) for all the keys. */
    @Override
    public List<byte[]> getAll(List<byte[]> keys) {
        long stamp = enter("get");
        try {
            return db.multiGetAsList(pointReadOptions, keys);
        } catch (RocksDBException e) {
            throw wrap("get", e);
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    /**
     * RocksDB's {@code KeyMayExist} reads at the block-cache tier: memtables, the row cache and cached blocks, and
     * {@code Incomplete} (here {@link MemoryLookup#UNKNOWN}) where a file would have to be read. Errors cannot
     * arise at that tier (nothing is read), which is why its {@code false} can be taken as "absent".
     */
    @Override
    public MemoryLookup getFromMemory(byte[] key) {
        long stamp = tryEnter();
        if (stamp == 0) {
            // Closing or closed: the caller's get elsewhere reports it.
            return MemoryLookup.UNKNOWN;
        }
        try {
            return MEMORY_LOOKUPS.get().lookup(db, pointReadOptions, key);
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    @Override
    public boolean putWithoutWaiting(byte[] key, byte[] value) {
        return writeWithoutWaiting("put", key, value);
    }

    @Override
    public boolean deleteWithoutWaiting(byte[] key) {
        return writeWithoutWaiting("delete", key, null);
    }

    /** A put ({@code value != null}) or delete with {@code no_slowdown}; {@code Incomplete} means a stall is in force. */
    private boolean writeWithoutWaiting(String operation, byte[] key, byte[] value) {
        if (noWaitWriteOptions == null) {
            return false;
        }
        long stamp = tryEnter();
        if (stamp == 0) {
            return false;
        }
        try {
            if (value != null) {
                db.put(noWaitWriteOptions, key, value);
            } else {
                db.delete(noWaitWriteOptions, key);
            }
            return true;
        } catch (RocksDBException e) {
            return stalled(operation, e);
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    /** {@link #write} with {@code no_slowdown}: one WAL record for the whole batch, or nothing when a stall is in force. */
    @Override
    public boolean writeWithoutWaiting(Batch batch) {
        if (noWaitWriteOptions == null) {
            return false;
        }
        long stamp = tryEnter();
        if (stamp == 0) {
            return false;
        }
        try (WriteBatch writes = toWriteBatch(batch)) {
            db.write(noWaitWriteOptions, writes);
            return true;
        } catch (RocksDBException e) {
            return stalled("write", e);
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    /** {@code false} for the {@code Incomplete} of a no-slowdown write refused by a stall; throws anything else. */
    private boolean stalled(String operation, RocksDBException e) {
        if (e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete) {
            return false;
        }
        throw wrap(operation, e);
    }

    @Override
    public void put(byte[] key, byte[] value) {
        long stamp = enter("put");
        try {
            db.put(writeOptions, key, value);
        } catch (RocksDBException e) {
            throw wrap("put", e);
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    @Override
    public void delete(byte[] key) {
        long stamp = enter("delete");
        try {
            db.delete(writeOptions, key);
        } catch (RocksDBException e) {
            throw wrap("delete", e);
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    /** Atomic: one WriteBatch, one WAL record (and one fsync with {@code --sync}) for the whole batch. */
    @Override
    public void write(Batch batch) {
        long stamp = enter("write");
        try (WriteBatch writes = toWriteBatch(batch)) {
            db.write(writeOptions, writes);
        } catch (RocksDBException e) {
            throw wrap("write", e);
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    private static WriteBatch toWriteBatch(Batch batch) throws RocksDBException {
        WriteBatch writes = new WriteBatch();
        try {
            for (Batch.Mutation m : batch.mutations()) {
                if (m.isDelete()) {
                    writes.delete(m.key());
                } else {
                    writes.put(m.key(), m.value());
                }
            }
            return writes;
        } catch (RocksDBException | RuntimeException e) {
            writes.close();
            throw e;
        }
    }

    @Override
    public RangeCursor range(byte[] start, byte[] end) {
        long stamp = enter("range");
        try {
            Cursor cursor = new Cursor(db.newIterator(scanReadOptions), start, end);
            openCursors.add(cursor);
            return cursor;
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    /** Stops (true) or resumes (false) flushes and compactions; for tests of what writers meet while flushes lag. */
    void pauseBackgroundWork(boolean pause) {
        guarded("pause", () -> {
            if (pause) {
                db.pauseBackgroundWork();
            } else {
                db.continueBackgroundWork();
            }
        });
    }

    /** Stops or resumes automatic compactions (flushes go on); for tests of a level 0 that fills up. */
    void autoCompactions(boolean on) {
        guarded("compaction switch",
                () -> db.setOptions(MutableColumnFamilyOptions.builder().setDisableAutoCompactions(!on).build()));
    }

    /** The calling thread's RocksDB perf level; for tests of {@link #PERF_CONTEXT_OFF}. */
    PerfLevel perfLevelOfThisThread() {
        return db.getPerfLevel();
    }

    /** Compacts every table file into the bottom level and waits; for tests of what follows a compaction. */
    void compactAll() {
        guarded("compact", db::compactRange);
    }

    /** Writes the memtables to table files and waits; for tests that need background work to have happened. */
    void flushMemtables() {
        guarded("flush", () -> {
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush);
            }
        });
    }

    /** A RocksDB call that returns nothing. */
    private interface RocksCall {
        void run() throws RocksDBException;
    }

    /**
     * Runs a test hook's call under a read stamp, as every store call runs. The request path spells the same steps
     * out instead, so that a lookup or a write does not pay for a lambda.
     */
    private void guarded(String operation, RocksCall call) {
        long stamp = enter(operation);
        try {
            call.run();
        } catch (RocksDBException e) {
            throw wrap(operation, e);
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    @Override
    public StoreStats stats() {
        return this;
    }

    /**
     * Whether half the memtables or more are full and waiting for their flush, the point from which the table warmer
     * gives the background's share of the core to the flushes (see {@link NewTableWarmer#start}); RocksDB stops every
     * write once all of them are.
     */
    boolean flushesBehind() {
        return !closing && askWithoutWaiting(flushesBehindQuestion);
    }

    // Held, not written at the call: the rescheduler asks about 2,000 times a second while the background works, and
    // a lambda that reads fields is a new object at each call unless the JIT happens to remove it.
    private final EngineQuestion flushesBehindQuestion = this::memtablesWaitingAtLeastHalf;

    private boolean memtablesWaitingAtLeastHalf() throws RocksDBException {
        return db.getLongProperty("rocksdb.num-immutable-mem-table") >= flushesBehindAt;
    }

    @Override
    public boolean backgroundBusy() {
        return askWithoutWaiting(backgroundBusyQuestion);
    }

    private final EngineQuestion backgroundBusyQuestion = this::flushCompactionOrWarmerRunning;

    private boolean flushCompactionOrWarmerRunning() throws RocksDBException {
        return db.getLongProperty("rocksdb.num-running-flushes") > 0
                || db.getLongProperty("rocksdb.num-running-compactions") > 0
                || warmer != null && warmer.busy();
    }

    /** A yes-or-no question to the engine, which may fail. */
    @FunctionalInterface
    private interface EngineQuestion {
        boolean ask() throws RocksDBException;
    }

    /**
     * Asks {@code question} for a caller that polls and must not wait (the rescheduler, the table warmer): no while
     * the store is closing or closed, or when the engine cannot answer.
     */
    private boolean askWithoutWaiting(EngineQuestion question) {
        long stamp = tryEnter();
        if (stamp == 0) {
            return false;
        }
        try {
            return question.ask();
        } catch (RocksDBException e) {
            return false;
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    /** Set when opening in sync mode dropped an incomplete record at the end of the log: what and why. */
    public Optional<String> walRecoveryWarning() {
        return Optional.ofNullable(walRecoveryWarning);
    }

    /** Table files in {@code level} now ({@code rocksdb.num-files-at-level<N>}, a text property); empty once closed. */
    OptionalLong filesAtLevel(int level) {
        return readProperty("rocksdb.num-files-at-level" + level, true);
    }

    @Override
    public OptionalLong property(String name) {
        return readProperty(name, false);
    }

    /** A property as a number: RocksDB's integer form, or its text form parsed; empty once closed or unknown. */
    private OptionalLong readProperty(String name, boolean text) {
        long stamp = lifecycle.readLock();
        try {
            if (closed) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(text ? Long.parseLong(db.getProperty(name).trim()) : db.getLongProperty(name));
        } catch (RocksDBException | NumberFormatException e) {
            return OptionalLong.empty();
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    @Override
    public OptionalLong ticker(String name) {
        if (statistics == null) {
            return OptionalLong.empty();
        }
        TickerType type;
        try {
            type = TickerType.valueOf(name);
        } catch (IllegalArgumentException e) {
            return OptionalLong.empty();
        }
        long stamp = lifecycle.readLock();
        try {
            return closed ? OptionalLong.empty() : OptionalLong.of(statistics.getTickerCount(type));
        } finally {
            lifecycle.unlockRead(stamp);
        }
    }

    /**
     * Syncs the WAL, closes open cursors, the database, then its options and caches. Waits for calls in progress.
     */
    @Override
    public void close() {
        closing = true;
        if (warmer != null) {
            warmer.stop();
        }
        long stamp = lifecycle.writeLock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (Cursor cursor : openCursors) {
                cursor.release();
            }
            openCursors.clear();
            StoreException failure = null;
            try {
                db.syncWal();
            } catch (RocksDBException e) {
                failure = wrap("close", e);
            }
            try {
                db.closeE();
            } catch (RocksDBException e) {
                if (failure == null) {
                    failure = wrap("close", e);
                }
            }
            releaseOptions();
            if (warmer != null) {
                try {
                    // Its thread cannot be reading any more (that needs a read stamp); let it end with the store.
                    warmer.awaitStopped(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            lifecycle.unlockWrite(stamp);
        }
    }

    private void releaseOptions() {
        scanReadOptions.close();
        pointReadOptions.close();
        writeOptions.close();
        if (noWaitWriteOptions != null) {
            noWaitWriteOptions.close();
        }
        options.close();
        bloomFilter.close();
        if (warmer != null) {
            warmer.close();
        }
        blockCache.close();
        if (rowCache != null) {
            rowCache.close();
        }
        if (statistics != null) {
            statistics.close();
        }
    }

    private long enter(String operation) {
        long stamp = lifecycle.readLock();
        if (closed) {
            lifecycle.unlockRead(stamp);
            throw new StoreException(operation, "store is closed", null, false);
        }
        perfContextOff();
        return stamp;
    }

    /**
     * {@link #enter} for a caller that must not wait: {@code 0} (nothing held) while the store is closing or closed,
     * instead of blocking on the close or throwing.
     */
    private long tryEnter() {
        long stamp = lifecycle.tryReadLock();
        if (stamp != 0 && closed) {
            lifecycle.unlockRead(stamp);
            return 0;
        }
        if (stamp != 0) {
            perfContextOff();
        }
        return stamp;
    }

    /** Called with the store open (a read stamp held): the level is the calling thread's, for every store. */
    private void perfContextOff() {
        if (PERF_CONTEXT_OFF.get() == null) {
            db.setPerfLevel(PerfLevel.DISABLE);
            PERF_CONTEXT_OFF.set(Boolean.TRUE);
        }
    }

    private static StoreException wrap(String operation, RocksDBException e) {
        Status status = e.getStatus();
        boolean noSpace = status != null && status.getSubCode() == Status.SubCode.NoSpace;
        String reason = status != null && status.getState() != null ? status.getState() : String.valueOf(e.getMessage());
        if (status != null) {
            reason = status.getCodeString() + ": " + reason;
        }
        return new StoreException(operation, reason.replace('\n', ' '), e, noSpace);
    }

    private final class Cursor implements RangeCursor {
        private final RocksIterator iterator;
        private final byte[] end;
        private boolean started;
        private boolean released;
        private byte[] key;
        private byte[] value;

        Cursor(RocksIterator iterator, byte[] start, byte[] end) {
            this.iterator = iterator;
            this.end = end;
            iterator.seek(start);
        }

        @Override
        public boolean next() {
            long stamp = enter("range");
            try {
                if (released) {
                    return false;
                }
                if (started) {
                    iterator.next();
                }
                started = true;
                if (!iterator.isValid()) {
                    iterator.status();
                    key = null;
                    value = null;
                    return false;
                }
                byte[] k = iterator.key();
                if (end != null && Arrays.compareUnsigned(k, end) >= 0) {
                    key = null;
                    value = null;
                    return false;
                }
                key = k;
                value = iterator.value();
                return true;
            } catch (RocksDBException e) {
                throw wrap("range", e);
            } finally {
                lifecycle.unlockRead(stamp);
            }
        }

        @Override
        public byte[] key() {
            return key;
        }

        @Override
        public byte[] value() {
            return value;
        }

        @Override
        public void close() {
            long stamp = lifecycle.readLock();
            try {
                if (!closed && openCursors.remove(this)) {
                    release();
                }
            } finally {
                lifecycle.unlockRead(stamp);
            }
        }

        private void release() {
            if (!released) {
                released = true;
                iterator.close();
            }
        }
    }
}
