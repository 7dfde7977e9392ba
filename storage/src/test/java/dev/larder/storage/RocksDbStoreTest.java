package dev.larder.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.PerfLevel;

/** The Store contract on a real RocksDB in a temporary directory. */
class RocksDbStoreTest {

    @TempDir
    Path dir;

    private RocksDbStore store;

    @BeforeEach
    void open() {
        store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db")));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void everyThreadThatUsesTheStoreHasRocksDbsPerfContextOff() throws Exception {
        store.put(b("k"), b("v"));
        List<Function<RocksDbStore, Object>> calls = List.of(
                s -> s.get(b("k")),
                s -> s.getFromMemory(b("k")),
                s -> { s.put(b("k2"), b("v")); return null; },
                s -> s.putWithoutWaiting(b("k3"), b("v")));
        for (Function<RocksDbStore, Object> call : calls) {
            // A new thread each time: the level is per thread, and RocksDB starts every thread counting.
            CompletableFuture<PerfLevel[]> levels = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    PerfLevel before = store.perfLevelOfThisThread();
                    call.apply(store);
                    levels.complete(new PerfLevel[] {before, store.perfLevelOfThisThread()});
                } catch (Throwable e) {
                    levels.completeExceptionally(e);
                }
            });
            thread.start();
            PerfLevel[] beforeAfter = levels.get(30, TimeUnit.SECONDS);
            assertEquals(PerfLevel.ENABLE_COUNT, beforeAfter[0], "RocksDB's own default on a new thread");
            assertEquals(PerfLevel.DISABLE, beforeAfter[1]);
        }
    }

    @Test
    void flushAndCompactionThreadsRunAtTheLowestCpuPriority() throws Exception {
        store.put(b("k"), b("v"));
        store.flushMemtables();
        // The pool lowers a thread's priority when it picks up a job, so the flush thread has run one by now.
        List<Integer> niceOfFlushThreads = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                String name = Files.readString(task.resolve("comm")).trim();
                if (name.equals("rocksdb:high")) {
                    String stat = Files.readString(task.resolve("stat"));
                    // Fields after the ")" that ends the thread name; nice is the 19th field of the line.
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    niceOfFlushThreads.add(Integer.parseInt(fields[16]));
                }
            }
        }
        assertFalse(niceOfFlushThreads.isEmpty(), "no rocksdb:high thread found");
        assertTrue(niceOfFlushThreads.contains(19), "flush threads' nice values: " + niceOfFlushThreads);
    }

    @Test
    void pointLookupsInTableFilesNeverLoadIndexOrFilterBlocksThroughTheCache() {
        for (int i = 0; i < 2000; i++) {
            store.put(b("key" + i), b("value" + i));
        }
        store.flushMemtables();
        for (int i = 0; i < 2000; i++) {
            assertArrayEquals(b("value" + i), store.get(b("key" + i)));
        }
        assertTrue(store.ticker("BLOCK_CACHE_DATA_MISS").orElseThrow() > 0, "lookups did not read a table file");
        assertEquals(0, store.ticker("BLOCK_CACHE_FILTER_MISS").orElseThrow());
        assertEquals(0, store.ticker("BLOCK_CACHE_INDEX_MISS").orElseThrow());
    }

    @Test
    void asWrittenACompactionsAndAFlushsBlocksAreCachedByRocksDbWithNoThreadReadingThemBack() throws Exception {
        assertEquals(TableWarming.READ_BACK, StoreOptions.DEFAULT_TABLE_WARMING);
        assertEquals(0, lookupMisses(TableWarming.AS_WRITTEN, 4, true), "data-block misses after a compaction");
        assertTrue(store.warmsNewTables());
        assertArrayEquals(new long[] {0, 0, 0}, store.tableWarmups(), "the read-back warmer ran");
        assertTrue(niceOfThreads("larder-warmer").isEmpty(), "a read-back warming thread was started");
        assertEquals("kFlushAndCompaction", prepopulationInOptionsFile(dir.resolve("warm-AS_WRITTEN4true")));
        assertEquals(0, lookupMisses(TableWarming.AS_WRITTEN, 1, false), "data-block misses after a flush");
        assertTrue(lookupMisses(TableWarming.OFF, 4, true) > 0, "without warming the lookups must miss (else the "
                + "assertions above prove nothing)");
        assertEquals("kDisable", prepopulationInOptionsFile(dir.resolve("warm-OFF4true")));
    }

    /** {@code prepopulate_block_cache} as RocksDB last wrote its options file (it writes one on every change). */
    private static String prepopulationInOptionsFile(Path db) throws Exception {
        Path newest;
        try (var files = Files.list(db)) {
            newest = files.filter(file -> file.getFileName().toString().startsWith("OPTIONS-"))
                    .max(Comparator.comparingLong(file -> Long.parseLong(
                            file.getFileName().toString().substring("OPTIONS-".length())))).orElseThrow();
        }
        return Files.readAllLines(newest).stream().map(String::trim)
                .filter(line -> line.startsWith("prepopulate_block_cache=")).findFirst().orElseThrow()
                .substring("prepopulate_block_cache=".length());
    }

    @Test
    void aCompactionsOutputIsReadIntoTheBlockCacheBeforeItIsInstalledSoLookupsRightAfterItHit() throws Exception {
        assertEquals(0, lookupMisses(TableWarming.READ_BACK, 4, true), "data-block misses with warming");
        assertTrue(store.tableWarmups()[2] >= 1, "no output file was read before the compaction installed it");
        assertTrue(lookupMisses(TableWarming.OFF, 4, true) > 0, "without warming the lookups must miss (else the "
                + "first assertion proves nothing)");
    }

    @Test
    void aReadIntoTheBlockCacheStoppedPartWayGoesOnFromTheKeyItStoppedAt() throws Exception {
        store.close();
        store = RocksDbStore.open(new StoreOptions(dir.resolve("resume"), 64 << 20, 0, false, true, true,
                StoreOptions.DEFAULT_WRITE_BUFFER_BYTES, TableWarming.OFF));
        int keys = 20_000;
        for (int i = 0; i < keys; i++) {
            store.put(b(String.format("key%08d", i)), b("value-" + i + "-".repeat(40)));
        }
        store.flushMemtables();
        String table;
        try (var files = Files.list(dir.resolve("resume"))) {
            table = files.map(Path::toString).filter(name -> name.endsWith(".sst")).findFirst().orElseThrow();
        }

        long addsBefore = store.ticker("BLOCK_CACHE_DATA_ADD").orElseThrow();
        // Asked before the read begins and then every 64 blocks, each loaded by one seek (the file's index gives
        // where each block begins: DataBlockSeekKeys): it stops after exactly the first 64.
        AtomicInteger stopChecks = new AtomicInteger();
        byte[] stoppedAt = store.readIntoBlockCache(table, NewTableWarmer.FIRST_KEY,
                () -> stopChecks.incrementAndGet() > 1);
        long addsFirst = store.ticker("BLOCK_CACHE_DATA_ADD").orElseThrow() - addsBefore;
        assertTrue(stoppedAt != null && new String(stoppedAt, UTF_8).compareTo("key00000000") > 0,
                "a stopped read names where it stopped");
        assertEquals(64, addsFirst, "the first part was not read a block per seek");

        long hitsBefore = store.ticker("BLOCK_CACHE_DATA_HIT").orElseThrow();
        long addsBeforeRest = store.ticker("BLOCK_CACHE_DATA_ADD").orElseThrow();
        assertNull(store.readIntoBlockCache(table, stoppedAt, () -> false), "the rest was not read to the end");
        // Only the block holding the stop key is read again; from the first key it would be every block read before.
        assertTrue(store.ticker("BLOCK_CACHE_DATA_HIT").orElseThrow() - hitsBefore <= 1,
                "the resumed read went over the first part again");
        long dataBlocks = DataBlockSeekKeysTest.properties(Path.of(table)).getNumDataBlocks();
        assertEquals(dataBlocks - 64, store.ticker("BLOCK_CACHE_DATA_ADD").orElseThrow() - addsBeforeRest,
                "the rest of the blocks, each once");

        long missesBefore = store.ticker("BLOCK_CACHE_DATA_MISS").orElseThrow();
        for (int i = 0; i < keys; i++) {
            assertArrayEquals(b("value-" + i + "-".repeat(40)), store.get(b(String.format("key%08d", i))));
        }
        assertEquals(0, store.ticker("BLOCK_CACHE_DATA_MISS").orElseThrow() - missesBefore,
                "a block of the file was left out between the two reads");
    }

    @Test
    void aFlushsOutputIsReadIntoTheBlockCacheSoLookupsAfterItHit() throws Exception {
        assertEquals(0, lookupMisses(TableWarming.READ_BACK, 1, false), "data-block misses with warming");
        assertEquals(0, store.tableWarmups()[2], "a flush was held up to read its file");
        assertTrue(lookupMisses(TableWarming.OFF, 1, false) > 0, "without warming the lookups must miss");
    }

    /** Writes table files (then compacts them into one), looks every key up: the block cache's data misses. */
    private long lookupMisses(TableWarming warming, int files, boolean compact) throws Exception {
        store.close();
        store = RocksDbStore.open(new StoreOptions(dir.resolve("warm-" + warming + files + compact), 64 << 20, 0,
                false, true, true, StoreOptions.DEFAULT_WRITE_BUFFER_BYTES, warming));
        int keys = 20_000;
        for (int file = 0; file < files; file++) {
            for (int i = file; i < keys; i += files) {
                store.put(b(String.format("key%08d", i)), b("value-" + i + "-".repeat(40)));
            }
            store.flushMemtables();
        }
        // A flush's output is read on the warmer's own thread, after the flush has finished.
        // The warmer runs at nice 19: on a busy machine it can take a while.
        waitUntil(() -> warming != TableWarming.READ_BACK || store.tableWarmups()[0] >= files, 60);
        assertTrue(warming != TableWarming.READ_BACK || store.tableWarmups()[0] >= files,
                "the warmer read " + store.tableWarmups()[0] + " of " + files + " flushed files within 60 s");
        if (compact) {
            // A compaction's output is cached as written, or read on the compaction's thread before it is installed:
            // no waiting either way.
            store.compactAll();
        }
        long before = store.ticker("BLOCK_CACHE_DATA_MISS").orElseThrow();
        for (int i = 0; i < keys; i++) {
            assertArrayEquals(b("value-" + i + "-".repeat(40)), store.get(b(String.format("key%08d", i))));
        }
        return store.ticker("BLOCK_CACHE_DATA_MISS").orElseThrow() - before;
    }

    @Test
    void newTablesAreWarmedOnAThreadOfTheirOwnAtTheLowestCpuPriority() throws Exception {
        assertEquals(0, lookupMisses(TableWarming.READ_BACK, 1, false));
        assertTrue(store.warmsNewTables());
        List<Integer> niceOfWarmers = niceOfThreads("larder-warmer");
        assertFalse(niceOfWarmers.isEmpty(), "no warming thread");
        assertTrue(niceOfWarmers.stream().allMatch(nice -> nice == 19), "warming threads' nice: " + niceOfWarmers);
    }

    private static List<Integer> niceOfThreads(String threadName) throws Exception {
        List<Integer> nice = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (Files.readString(task.resolve("comm")).trim().equals(threadName)) {
                        String stat = Files.readString(task.resolve("stat"));
                        // Fields after the ")" that ends the thread name; nice is the 19th field of the line.
                        nice.add(Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]));
                    }
                } catch (java.io.IOException gone) {
                    // the thread ended while we listed
                }
            }
        }
        return nice;
    }

    @Test
    void newTablesLargerThanHalfTheBlockCacheAreLeftCold() throws Exception {
        store.close();
        store = RocksDbStore.open(new StoreOptions(dir.resolve("small-cache"), 64 << 10, 0, false, true, true,
                StoreOptions.DEFAULT_WRITE_BUFFER_BYTES, TableWarming.READ_BACK));
        for (int file = 0; file < 2; file++) {
            for (int i = file; i < 4000; i += 2) {
                store.put(b(String.format("key%08d", i)), b("v".repeat(100)));
            }
            store.flushMemtables();
        }
        store.compactAll();
        waitUntil(() -> store.tableWarmups()[1] > 0, 60);
        assertEquals(0, store.tableWarmups()[0]);
        assertTrue(store.tableWarmups()[1] >= 1);
    }

    @Test
    void writesGoOnWithoutWaitingWhileFullMemtablesWaitForTheirFlush() {
        // Two memtables' worth with no flush running. With the default memtables all of it goes in; with RocksDB's
        // own default of two, writes stopped after about 110 of these (a memtable counts its arena, not only the
        // data), which is what made every lagging flush a second of stopped PUTs.
        int target = 2 * (64 << 10) / 1024;
        assertEquals(target, writtenWithoutWaiting(StoreOptions.DEFAULT_MEMTABLES, target),
                "a write was refused by a stall with " + StoreOptions.DEFAULT_MEMTABLES + " memtables");
        assertTrue(writtenWithoutWaiting(2, target) < target, "two memtables must stall before " + target);
    }

    /**
     * Level 0 is compacted from {@link RocksDbStore#LEVEL0_COMPACTION_TRIGGER} files on, not from RocksDB's four: one
     * file short of it no compaction is due, and the file that reaches it starts one, which empties level 0.
     */
    @Test
    void levelZeroIsCompactedFromTheTriggersFileOn() throws Exception {
        int trigger = RocksDbStore.LEVEL0_COMPACTION_TRIGGER;
        for (int file = 0; file < trigger - 1; file++) {
            flushOneFileSpanningEveryKey(file);
        }
        assertEquals(trigger - 1, store.filesAtLevel(0).orElseThrow(),
                "level 0 was compacted below the trigger");
        assertEquals(0, store.property("rocksdb.compaction-pending").orElseThrow(), "a compaction is due");
        flushOneFileSpanningEveryKey(trigger - 1);
        waitUntil(() -> store.filesAtLevel(0).orElseThrow() == 0, 30);
        assertEquals(0, store.filesAtLevel(0).orElseThrow(),
                "no compaction emptied level 0 within 30 s of its " + trigger + "th file");
        for (int file = 0; file < trigger; file++) {
            assertArrayEquals(b("v" + file), store.get(b("m" + file)));
        }
    }

    /** Polls {@code done} until it holds or {@code seconds} have passed; the caller asserts what it waited for. */
    private static void waitUntil(BooleanSupplier done, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /** One level-0 file whose keys span the whole key range, as those of a write phase do. */
    private void flushOneFileSpanningEveryKey(int file) {
        store.write(new Batch().put(b("a"), b("v" + file)).put(b("m" + file), b("v" + file))
                .put(b("z"), b("v" + file)));
        store.flushMemtables();
    }

    /**
     * 38 level-0 files that no compaction has got to yet: past RocksDB's own stop trigger (36), at which every write
     * stops (and one that may not wait is refused), and under this store's slowdown trigger (40), so writes go on
     * while a starved compaction catches up. (RocksDB ignores the triggers while auto compactions are off, so they are
     * turned back on with background work paused: the files are counted, nothing compacts them.)
     */
    @Test
    void writesGoOnWithoutWaitingPastRocksDbsLevelZeroStopTrigger() {
        store.close();
        store = RocksDbStore.open(new StoreOptions(dir.resolve("level0"), 8 << 20, 0, false, true, true, 64 << 10,
                TableWarming.OFF, StoreOptions.DEFAULT_MEMTABLES));
        store.autoCompactions(false);
        for (int file = 0; file < 38; file++) {
            store.put(b("key" + file), b("v" + file)); // each flush of a one-key memtable is one level-0 file
            store.flushMemtables();
        }
        store.pauseBackgroundWork(true);
        try {
            store.autoCompactions(true);
            assertTrue(store.putWithoutWaiting(b("after"), b("v")), "a write was held back by level 0");
        } finally {
            store.pauseBackgroundWork(false);
        }
        assertArrayEquals(b("v0"), store.get(b("key0")));
        assertArrayEquals(b("v"), store.get(b("after")));
    }

    /**
     * The table warmer gives way to the flushes once half the memtables are full and waiting for theirs: with four
     * memtables and flushes paused that is the second one full, not the first, and it ends once they are flushed.
     */
    @Test
    void flushesCountAsBehindFromHalfTheMemtablesWaitingForTheirFlush() throws Exception {
        store.close();
        store = RocksDbStore.open(new StoreOptions(dir.resolve("flushes-behind"), 8 << 20, 0, false, true, true,
                64 << 10, TableWarming.OFF, 4));
        byte[] value = new byte[1024];
        store.pauseBackgroundWork(true);
        try {
            int written = 0;
            while (!store.flushesBehind()) {
                assertTrue(written < 1000, "not behind after " + written + " KiB written");
                assertTrue(store.writeWithoutWaiting(new Batch().put(b(String.format("key%06d", written++)), value)),
                        "a write was refused before the flushes counted as behind");
            }
            assertEquals(2, store.property("rocksdb.num-immutable-mem-table").orElseThrow());
        } finally {
            store.pauseBackgroundWork(false);
        }
        waitUntil(() -> !store.flushesBehind(), 60);
        assertEquals(0, store.property("rocksdb.num-immutable-mem-table").orElseThrow());
    }

    /** Writes 1 KiB values into 64 KiB memtables with flushes paused, until a write is refused: how many went in. */
    private int writtenWithoutWaiting(int memtables, int target) {
        store.close();
        int bufferBytes = 64 << 10;
        store = RocksDbStore.open(new StoreOptions(dir.resolve("lagging-flush-" + memtables), 8 << 20, 0, false, true,
                true, bufferBytes, TableWarming.OFF, memtables));
        byte[] value = new byte[1024];
        store.pauseBackgroundWork(true);
        int written = 0;
        try {
            while (written < target
                    && store.writeWithoutWaiting(new Batch().put(b(String.format("key%06d", written)), value))) {
                written++;
            }
        } finally {
            store.pauseBackgroundWork(false);
        }
        for (int i = 0; i < written; i++) {
            assertArrayEquals(value, store.get(b(String.format("key%06d", i))));
        }
        return written;
    }

    @Test
    void batchAppliesPutsAndDeletesInOrderAndSurvivesReopen() {
        store.put(b("gone"), b("old"));
        store.write(new Batch().put(b("a"), b("1")).put(b("b"), new byte[0]).delete(b("gone"))
                .put(b("a"), b("2")).delete(b("never-there")));
        assertArrayEquals(b("2"), store.get(b("a")));
        assertArrayEquals(new byte[0], store.get(b("b")));
        assertNull(store.get(b("gone")));
        store.close();
        store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db")));
        assertArrayEquals(b("2"), store.get(b("a")));
        assertArrayEquals(new byte[0], store.get(b("b")));
        assertNull(store.get(b("gone")));
    }

    @Test
    void rowCacheAnswersRepeatedLookupsAndNeverAnOverwrittenValue() {
        StoreOptions withRowCache = new StoreOptions(dir.resolve("rows"), 8 << 20, 8 << 20, false, true, true);
        store.close();
        store = RocksDbStore.open(withRowCache);
        store.put(b("k"), b("v1"));
        store.put(b("other"), b("o"));
        reopen(withRowCache); // recovery writes the log to an SST file: the row cache only holds what files answer
        assertArrayEquals(b("v1"), store.get(b("k")));
        long hits = store.ticker("ROW_CACHE_HIT").orElseThrow();
        assertArrayEquals(b("v1"), store.get(b("k")));
        assertEquals(List.of("v1", "o"), strings(store.getAll(List.of(b("k"), b("other")))));
        assertEquals(hits + 2, store.ticker("ROW_CACHE_HIT").orElseThrow(), "the repeated lookups were hits");

        store.put(b("k"), b("v2")); // in the memtable, which is read before any file
        assertArrayEquals(b("v2"), store.get(b("k")));
        reopen(withRowCache); // now v2 is in a newer file than the cached v1
        assertArrayEquals(b("v2"), store.get(b("k")));
        assertEquals(List.of("v2", "o"), strings(store.getAll(List.of(b("k"), b("other")))));
        store.delete(b("k"));
        assertNull(store.get(b("k")));
        reopen(withRowCache);
        assertNull(store.get(b("k")));
        assertArrayEquals(b("o"), store.get(b("other")));
    }

    @Test
    void eachBlockCacheTypeIsTheOneRocksDbUsesAndAnswersRepeatedLookups() throws Exception {
        for (BlockCacheType type : BlockCacheType.values()) {
            Path db = dir.resolve("cache-" + type.flag());
            reopen(new StoreOptions(db, 8 << 20, 0, false, true, true, StoreOptions.DEFAULT_WRITE_BUFFER_BYTES,
                    TableWarming.OFF, StoreOptions.DEFAULT_MEMTABLES, type));
            for (int i = 0; i < 2000; i++) {
                store.put(b("key" + i), b("value" + i));
            }
            store.flushMemtables();
            for (int i = 0; i < 2000; i++) {
                assertArrayEquals(b("value" + i), store.get(b("key" + i)));
            }
            // That the cache answers holds for any cache RocksDB is given; which one it was given, only its LOG says.
            long hits = store.ticker("BLOCK_CACHE_DATA_HIT").orElseThrow();
            for (int i = 0; i < 2000; i++) {
                assertArrayEquals(b("value" + i), store.get(b("key" + i)));
            }
            assertTrue(store.ticker("BLOCK_CACHE_DATA_HIT").orElseThrow() >= hits + 2000,
                    type + ": repeated lookups were not answered from the block cache");
            // RocksDB writes the table options it was given, the cache's implementation among them, to its LOG.
            // (with an estimated entry charge of 0 the clock cache names itself AutoHyperClockCache)
            String expected = type == BlockCacheType.HYPER_CLOCK ? "HyperClockCache" : "LRUCache";
            Matcher name = Pattern.compile("block_cache_name: (\\w+)").matcher(Files.readString(db.resolve("LOG")));
            assertTrue(name.find(), type + ": LOG names no block cache");
            assertTrue(name.group(1).endsWith(expected), type + ": LOG names " + name.group(1));
        }
        assertEquals(BlockCacheType.HYPER_CLOCK, StoreOptions.defaults(dir).blockCacheType());
    }

    @Test
    void theBlockSizeSetsHowManyBlocksTheSameDataTakes() throws IOException {
        // The same 20,000 records of about 110 bytes read once each from a cold cache: every data block is added to
        // the cache once, so the adds count the blocks the data was cut into.
        long[] adds = new long[2];
        long[] sizes = {StoreOptions.DEFAULT_BLOCK_SIZE_BYTES, 16L << 10};
        for (int s = 0; s < sizes.length; s++) {
            Path db = dir.resolve("blocks-" + sizes[s]);
            reopen(new StoreOptions(db, 64 << 20, 0, false, true, true, StoreOptions.DEFAULT_WRITE_BUFFER_BYTES,
                    TableWarming.OFF, StoreOptions.DEFAULT_MEMTABLES, StoreOptions.DEFAULT_BLOCK_CACHE_TYPE, sizes[s]));
            for (int i = 0; i < 20_000; i++) {
                store.put(b("key" + i), b("value-" + i + "-" + "v".repeat(96)));
            }
            store.flushMemtables();
            long before = store.ticker("BLOCK_CACHE_DATA_ADD").orElseThrow();
            for (int i = 0; i < 20_000; i++) {
                assertArrayEquals(b("value-" + i + "-" + "v".repeat(96)), store.get(b("key" + i)));
            }
            adds[s] = store.ticker("BLOCK_CACHE_DATA_ADD").orElseThrow() - before;
            assertTrue(Files.readString(db.resolve("LOG")).contains("block_size: " + sizes[s]),
                    "LOG gives the table options RocksDB was given");
        }
        // About 2.2 MB of records: some 540 blocks of 4 KiB, some 135 of 16 KiB.
        assertTrue(adds[0] > 3 * adds[1] && adds[1] > 50, "4 KiB: " + adds[0] + " blocks, 16 KiB: " + adds[1]);
        assertEquals(4096, StoreOptions.defaults(dir).blockSizeBytes());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new StoreOptions(dir, 0, 0,
                false, true, true, StoreOptions.DEFAULT_WRITE_BUFFER_BYTES, TableWarming.OFF,
                StoreOptions.DEFAULT_MEMTABLES,
                StoreOptions.DEFAULT_BLOCK_CACHE_TYPE, 512));
        assertEquals("block-size: 512 (expected: 1024 to 1048576 bytes)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new StoreOptions(dir, 0, 0, false, true, true,
                StoreOptions.DEFAULT_WRITE_BUFFER_BYTES, TableWarming.OFF, StoreOptions.DEFAULT_MEMTABLES,
                StoreOptions.DEFAULT_BLOCK_CACHE_TYPE, 2L << 20));
    }

    @Test
    void byDefaultThereIsNoRowCacheAndLookupsStillWork() {
        store.put(b("k"), b("v"));
        reopen(StoreOptions.defaults(dir.resolve("db")));
        assertArrayEquals(b("v"), store.get(b("k")));
        assertArrayEquals(b("v"), store.get(b("k")));
        assertEquals(0, store.ticker("ROW_CACHE_HIT").orElseThrow());
        assertEquals(0, store.ticker("ROW_CACHE_MISS").orElseThrow(), "a lookup went through a row cache");
    }

    private void reopen(StoreOptions options) {
        store.close();
        store = RocksDbStore.open(options);
    }

    private static List<String> strings(List<byte[]> values) {
        return values.stream().map(v -> v == null ? null : new String(v, UTF_8)).toList();
    }

    @Test
    void getAllReturnsValuesInKeyOrderWithNullForAbsentKeys() {
        store.put(b("x"), b("1"));
        store.put(b("z"), new byte[0]);
        List<byte[]> values = store.getAll(List.of(b("z"), b("missing"), b("x"), b("x")));
        assertEquals(4, values.size());
        assertArrayEquals(new byte[0], values.get(0));
        assertNull(values.get(1));
        assertArrayEquals(b("1"), values.get(2));
        assertArrayEquals(b("1"), values.get(3));
    }

    @Test
    void batchOnAClosedStoreFailsClearly() {
        store.close();
        StoreException e = assertThrows(StoreException.class, () -> store.write(new Batch().put(b("k"), b("v"))));
        assertTrue(e.getMessage().contains("write"), e.getMessage());
    }

    @Test
    void getOfAbsentKeyIsNull() {
        assertNull(store.get(b("missing")));
    }

    @Test
    void putThenGetReturnsExactBytesAndUpserts() {
        byte[] key = {0, (byte) 0xff, 10, 13, 'k'};
        byte[] value = {(byte) 0x80, 0, 1, 2};
        store.put(key, value);
        assertArrayEquals(value, store.get(key));
        store.put(key, b("second"));
        assertArrayEquals(b("second"), store.get(key));
    }

    @Test
    void emptyValueIsAValueNotAnAbsence() {
        store.put(b("e"), new byte[0]);
        assertArrayEquals(new byte[0], store.get(b("e")));
    }

    @Test
    void deleteRemovesAndDeletingAbsentKeyIsFine() {
        store.put(b("d"), b("v"));
        store.delete(b("d"));
        assertNull(store.get(b("d")));
        store.delete(b("never-there"));
    }

    @Test
    void rangeIsAscendingUnsignedHalfOpen() {
        for (String k : List.of("a", "b", "c", "d")) {
            store.put(b(k), b("v" + k));
        }
        store.put(new byte[] {(byte) 0xf0}, b("high"));
        assertEquals(List.of("b", "c"), keys(store.range(b("b"), b("d"))));
        assertEquals(5, keys(store.range(b("a"), null)).size());
        // 0xf0 sorts after ASCII as an unsigned byte.
        List<String> all = keys(store.range(b("c"), null));
        assertEquals(3, all.size());
        assertEquals("c", all.get(0));
        assertTrue(keys(store.range(b("x"), b("y"))).isEmpty());
    }

    @Test
    void rangeValuesMatchKeys() {
        store.put(b("k1"), b("one"));
        store.put(b("k2"), b("two"));
        try (RangeCursor cursor = store.range(b("k"), null)) {
            assertTrue(cursor.next());
            assertArrayEquals(b("k1"), cursor.key());
            assertArrayEquals(b("one"), cursor.value());
            assertTrue(cursor.next());
            assertArrayEquals(b("two"), cursor.value());
            assertFalse(cursor.next());
        }
    }

    @Test
    void dataSurvivesReopen() {
        store.put(b("durable"), b("yes"));
        store.delete(b("durable-gone"));
        store.close();
        store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db")));
        assertArrayEquals(b("yes"), store.get(b("durable")));
    }

    @Test
    void syncModeWritesAndReads() {
        store.close();
        store = RocksDbStore.open(new StoreOptions(dir.resolve("sync"), 8 << 20, 4 << 20, true, false, true));
        store.put(b("s"), b("synced"));
        assertArrayEquals(b("synced"), store.get(b("s")));
        assertTrue(store.stats().ticker("BLOCK_CACHE_HIT").isEmpty(), "statistics off means no tickers");
    }

    @Test
    void secondOpenOfSameDirectoryFailsClearly() {
        StoreException e = assertThrows(StoreException.class,
                () -> RocksDbStore.open(StoreOptions.defaults(dir.resolve("db"))));
        assertTrue(e.getMessage().contains("already in use"), e.getMessage());
    }

    @Test
    void missingDirectoryIsCreated() {
        Path nested = dir.resolve("a/b/c");
        try (RocksDbStore other = RocksDbStore.open(StoreOptions.defaults(nested))) {
            other.put(b("x"), b("y"));
        }
        assertTrue(Files.isDirectory(nested));
    }

    @Test
    void callsAfterCloseFailInsteadOfCrashing() {
        RangeCursor cursor = store.range(b("a"), null);
        store.close();
        assertThrows(StoreException.class, () -> store.get(b("a")));
        assertThrows(StoreException.class, cursor::next);
        cursor.close();
        assertTrue(store.stats().property("rocksdb.estimate-num-keys").isEmpty());
        store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db2")));
    }

    @Test
    void statsReportKeysAndTickers() {
        for (int i = 0; i < 100; i++) {
            store.put(b("key" + i), b("v"));
        }
        assertTrue(store.stats().property("rocksdb.estimate-num-keys").orElse(0) > 0);
        assertTrue(store.stats().ticker("BYTES_WRITTEN").orElse(0) > 0);
        assertTrue(store.stats().property("no-such-property").isEmpty());
        assertTrue(store.stats().ticker("NO_SUCH_TICKER").isEmpty());
    }

    @Test
    void concurrentWritersAllLand() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 500; i++) {
                        store.put(b(thread + ":" + i), b(Integer.toString(i)));
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (int t = 0; t < 4; t++) {
            for (int i = 0; i < 500; i++) {
                assertArrayEquals(b(Integer.toString(i)), store.get(b(t + ":" + i)));
            }
        }
    }

    /**
     * What {@code --reschedule-interval} waits on: busy while flushes and a compaction run, idle before and after,
     * and idle (not an error) once closed.
     */
    @Test
    void backgroundBusyWhileFlushesAndCompactionsRun() throws Exception {
        store.close();
        store = RocksDbStore.open(new StoreOptions(dir.resolve("busy"), 8 << 20, 0, false, true, false, 64 << 10,
                TableWarming.OFF, StoreOptions.DEFAULT_MEMTABLES));
        awaitIdle();
        store.autoCompactions(false);
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService poller = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> busySeen = poller.submit(() -> {
                int seen = 0;
                while (!done.get()) {
                    seen += store.backgroundBusy() ? 1 : 0;
                }
                return seen;
            });
            byte[] value = new byte[100];
            for (int i = 0; i < 200_000; i++) { // about 300 flushes of 64 KiB memtables, then one compaction of them
                store.put(b(String.format("key%07d", i)), value);
            }
            store.compactAll();
            done.set(true);
            assertTrue(busySeen.get() > 0, "never busy through the flushes and the compaction");
        } finally {
            done.set(true);
            poller.shutdownNow();
        }
        awaitIdle();
        store.close();
        assertFalse(store.backgroundBusy(), "a closed store");
    }

    private void awaitIdle() throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (store.backgroundBusy()) {
            assertTrue(System.nanoTime() < deadline, "still busy after 20 s with nothing to do");
            Thread.sleep(10);
        }
    }

    private static List<String> keys(RangeCursor cursor) {
        List<String> keys = new ArrayList<>();
        try (cursor) {
            while (cursor.next()) {
                keys.add(new String(cursor.key(), UTF_8));
            }
        }
        return keys;
    }
}
