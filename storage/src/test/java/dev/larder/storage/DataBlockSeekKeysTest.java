package dev.larder.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.Snapshot;
import org.rocksdb.SstFileReader;
import org.rocksdb.SstFileReaderIterator;
import org.rocksdb.Statistics;
import org.rocksdb.TableProperties;
import org.rocksdb.TickerType;

/**
 * The seek keys read from table files RocksDB wrote here: as many as the table has data blocks, and a seek to each
 * loads a block no earlier seek loaded, through a block cache that starts empty.
 */
class DataBlockSeekKeysTest {

    @TempDir
    Path dir;

    @BeforeAll
    static void loadRocksDb() {
        RocksDB.loadLibrary();
    }

    @Test
    void eachSeekKeyLoadsTheNextDataBlockWhenKeysFollowEachOtherByteByByte() throws Exception {
        // "key00000123" then "key00000124": no shorter separator exists, so each is a block's own last key.
        Path table = writeTable("adjacent", numberedKeys("key%08d", 20_000), 7, false);
        assertEachSeekLoadsOneNewBlock(table);
    }

    @Test
    void eachSeekKeyLoadsTheNextDataBlockWhenSeparatorsAreShortened() throws Exception {
        Random random = new Random(80);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            byte[] key = new byte[4 + random.nextInt(28)];
            random.nextBytes(key);
            keys.add(key);
        }
        Path table = writeTable("random", keys, 7, false);
        assertEachSeekLoadsOneNewBlock(table);
    }

    @Test
    void theFooterOfFormatVersionFiveNamesTheIndexItself() throws Exception {
        assertEachSeekLoadsOneNewBlock(writeTable("v5", numberedKeys("v5-%06d", 5_000), 5, false));
    }

    @Test
    void aCompressedIndexOrAFileThatIsNotATableGivesNoKeys() throws Exception {
        List<byte[]> keys = numberedKeys("key%08d", 20_000);
        Path compressed = writeTable("compressed", keys, 7, true);
        assertEquals(Optional.empty(), DataBlockSeekKeys.read(compressed, true, true),
                "an LZ4-compressed index is not read (the caller walks the file instead)");

        Path uncompressed = writeTable("whole", keys, 7, false);
        byte[] bytes = Files.readAllBytes(uncompressed);
        Path truncated = dir.resolve("truncated.sst");
        Files.write(truncated, Arrays.copyOf(bytes, bytes.length - 20));
        assertEquals(Optional.empty(), DataBlockSeekKeys.read(truncated, true, true));
        Path text = dir.resolve("text.sst");
        Files.writeString(text, "not a table file, but longer than a footer: ".repeat(4));
        assertEquals(Optional.empty(), DataBlockSeekKeys.read(text, true, true));
        Path empty = dir.resolve("empty.sst");
        Files.write(empty, new byte[0]);
        assertEquals(Optional.empty(), DataBlockSeekKeys.read(empty, true, true));
    }

    @Test
    void versionsOfOneKeyKeptForSnapshotsMakeTheIndexKeysInternalAndTheirSeekKeyFollowsTheUserKey()
            throws Exception {
        Path db = dir.resolve("versions");
        List<Snapshot> snapshots = new ArrayList<>();
        try (Options options = tableOptions(7, false); RocksDB rocks = RocksDB.open(options, db.toString());
                FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            rocks.put("a".getBytes(UTF_8), "first".getBytes(UTF_8));
            for (int version = 0; version < 100; version++) {
                rocks.put("dup".getBytes(UTF_8), ("v" + version + "-".repeat(400)).getBytes(UTF_8));
                snapshots.add(rocks.getSnapshot());
            }
            rocks.flush(flush);
            snapshots.forEach(rocks::releaseSnapshot);
        }
        Path table = onlyTable(db);
        TableProperties properties = properties(table);
        assertEquals(0, properties.getIndexKeyIsUserKey(), "the index must hold internal keys here");
        List<byte[]> seekKeys = DataBlockSeekKeys.read(table, false, properties.getIndexValueIsDeltaEncoded() != 0)
                .orElseThrow();
        assertEquals(properties.getNumDataBlocks(), seekKeys.size());
        assertTrue(seekKeys.size() > 5, "the versions must span blocks");
        assertArrayEquals(new byte[0], seekKeys.get(0));
        for (byte[] key : seekKeys.subList(1, seekKeys.size())) {
            assertArrayEquals("dup\0".getBytes(UTF_8), key, "the sequence number and type were not taken off: "
                    + seekKeys.stream().map(Arrays::toString).toList());
        }
    }

    private void assertEachSeekLoadsOneNewBlock(Path table) throws Exception {
        TableProperties properties = properties(table);
        assertEquals(1, properties.getIndexKeyIsUserKey());
        List<byte[]> seekKeys = DataBlockSeekKeys.read(table, true, properties.getIndexValueIsDeltaEncoded() != 0)
                .orElseThrow();
        assertEquals(properties.getNumDataBlocks(), seekKeys.size(), "one seek key per data block");
        assertTrue(seekKeys.size() > 20, "the table must have many blocks to prove anything");
        assertArrayEquals(new byte[0], seekKeys.get(0));
        for (int i = 1; i < seekKeys.size(); i++) {
            assertTrue(Arrays.compareUnsigned(seekKeys.get(i - 1), seekKeys.get(i)) < 0, "keys must ascend");
        }
        try (Statistics statistics = new Statistics(); LRUCache cache = new LRUCache(64 << 20);
                Options options = new Options().setStatistics(statistics)
                        .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
                SstFileReader reader = new SstFileReader(options); ReadOptions read = new ReadOptions()) {
            reader.open(table.toString());
            try (SstFileReaderIterator iterator = reader.newIterator(read)) {
                for (int i = 0; i < seekKeys.size(); i++) {
                    long before = statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_ADD);
                    iterator.seek(seekKeys.get(i));
                    assertTrue(iterator.isValid());
                    assertEquals(1, statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_ADD) - before,
                            "seek " + i + " did not load exactly one new block");
                }
            }
        }
    }

    /** {@code format} applied to 0 .. count-1: keys that follow each other byte by byte. */
    private static List<byte[]> numberedKeys(String format, int count) {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(String.format(format, i).getBytes(UTF_8));
        }
        return keys;
    }

    /** Writes {@code keys} (in any order) to one table file through a real database, and returns its path. */
    private Path writeTable(String name, List<byte[]> keys, int formatVersion, boolean compressIndex)
            throws Exception {
        Path db = dir.resolve(name);
        try (Options options = tableOptions(formatVersion, compressIndex);
                RocksDB rocks = RocksDB.open(options, db.toString());
                FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            for (byte[] key : keys) {
                rocks.put(key, ("value-" + "-".repeat(40)).getBytes(UTF_8));
            }
            rocks.flush(flush);
        }
        return onlyTable(db);
    }

    private static Options tableOptions(int formatVersion, boolean compressIndex) {
        return new Options().setCreateIfMissing(true).setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setFormatVersion(formatVersion).setBlockSize(4096)
                        .setEnableIndexCompression(compressIndex));
    }

    private static Path onlyTable(Path db) throws Exception {
        try (var files = Files.list(db)) {
            List<Path> tables = files.filter(file -> file.toString().endsWith(".sst")).toList();
            assertEquals(1, tables.size());
            return tables.get(0);
        }
    }

    /** The properties RocksDB recorded in a table file (also used by {@code RocksDbStoreTest}). */
    static TableProperties properties(Path table) throws Exception {
        try (Options options = new Options(); SstFileReader reader = new SstFileReader(options)) {
            reader.open(table.toString());
            return reader.getTableProperties();
        }
    }
}
