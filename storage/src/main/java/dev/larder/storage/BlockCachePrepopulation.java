package dev.larder.storage;

import java.lang.reflect.Constructor;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Makes RocksDB put each data block a flush or a compaction writes into the block cache as it writes it
 * ({@link TableWarming#AS_WRITTEN}).
 *
 * <p>Why this way: RocksJava 11.8 has no setter for {@code BlockBasedTableOptions.prepopulate_block_cache}, but the
 * option is mutable: RocksDB's {@code SetOptions} takes {@code block_based_table_factory={prepopulate_block_cache=...}}
 * and changes only that field of the table factory (its block cache, filter policy and block size stay). RocksJava
 * hands {@code SetOptions} keys and values only through {@link MutableColumnFamilyOptions}, whose builder knows a fixed
 * list of keys; its constructor from raw keys and values is private, so it is called reflectively (the jar is on the
 * class path, in the unnamed module, so nothing needs opening). Should a RocksJava upgrade remove it, the store fails
 * to open with this class named in the error, rather than run cold.
 *
 * <p>It cannot be set for compactions alone, which is what would pay here: RocksDB offers only flushes, or flushes and
 * compactions, and changing the option as each compaction's file was announced (tried in session 78) did not reach
 * the file being made, likely because a job keeps the options it was scheduled with.
 */
final class BlockCachePrepopulation {

    private static final String TABLE_FACTORY = "block_based_table_factory";
    private static final String FLUSH_AND_COMPACTION = "{prepopulate_block_cache=kFlushAndCompaction}";

    private BlockCachePrepopulation() {
    }

    /** On {@code db}'s default column family, for the flushes and compactions scheduled from now on. */
    static void enableForFlushesAndCompactions(RocksDB db) throws RocksDBException {
        MutableColumnFamilyOptions change;
        try {
            Constructor<MutableColumnFamilyOptions> fromKeysAndValues =
                    MutableColumnFamilyOptions.class.getDeclaredConstructor(String[].class, String[].class);
            fromKeysAndValues.setAccessible(true);
            change = fromKeysAndValues.newInstance(new String[] {TABLE_FACTORY}, new String[] {FLUSH_AND_COMPACTION});
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("BlockCachePrepopulation: this RocksJava has no MutableColumnFamilyOptions"
                    + "(String[], String[]) to set prepopulate_block_cache with; use --warm-new-tables read-back", e);
        }
        db.setOptions(change);
    }
}
