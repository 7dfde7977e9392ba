package dev.larder.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The calls an event loop may make without blocking, on a real RocksDB: a lookup answered only from memory, and
 * writes that refuse to wait.
 */
class MemoryLookupTest {

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    /** No row cache and no warming, so after a reopen a flushed key's data block is in no cache. */
    private StoreOptions coldOptions(Path path) {
        return new StoreOptions(path, 8 << 20, 0, false, true, true, StoreOptions.DEFAULT_WRITE_BUFFER_BYTES,
                TableWarming.OFF);
    }

    @Test
    void theMemtableAnswersFoundAndAbsent() {
        try (RocksDbStore store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db")))) {
            store.put(b("k"), b("v"));
            MemoryLookup hit = store.getFromMemory(b("k"));
            assertTrue(hit.known());
            assertArrayEquals(b("v"), hit.value());

            assertSame(MemoryLookup.ABSENT, store.getFromMemory(b("never-written")));
            store.delete(b("k"));
            assertSame(MemoryLookup.ABSENT, store.getFromMemory(b("k")), "a tombstone in the memtable");
        }
    }

    /**
     * The lookup copies through direct buffers it keeps per thread (4 KiB for values at first): values and keys past
     * them, past the size it keeps (then read the byte[] way), and empty ones come back whole.
     */
    @Test
    void valuesAndKeysOfEverySizeComeBackWhole() {
        try (RocksDbStore store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db")))) {
            int[] sizes = {0, 1, 4095, 4096, 4097, 20_000, DirectMemoryLookup.KEPT_CAPACITY,
                    DirectMemoryLookup.KEPT_CAPACITY + 1, 1 << 20, 7};
            for (int size : sizes) {
                byte[] key = ("key-" + size + "-" + "k".repeat(size % 3000)).getBytes(UTF_8);
                byte[] value = new byte[size];
                for (int i = 0; i < size; i++) {
                    value[i] = (byte) (i * 31 + size);
                }
                store.put(key, value);
                MemoryLookup hit = store.getFromMemory(key);
                assertTrue(hit.known(), "size " + size);
                assertArrayEquals(value, hit.value(), "size " + size);
            }
            byte[] longKey = "x".repeat(10_000).getBytes(UTF_8);
            store.put(longKey, b("long key's value"));
            assertArrayEquals(b("long key's value"), store.getFromMemory(longKey).value());
            assertSame(MemoryLookup.ABSENT, store.getFromMemory("y".repeat(10_000).getBytes(UTF_8)));
        }
    }

    @Test
    void aKeyOnlyInAnUncachedBlockIsUnknownUntilAGetCachesIt() {
        Path path = dir.resolve("cold");
        try (RocksDbStore store = RocksDbStore.open(coldOptions(path))) {
            for (int i = 0; i < 1000; i++) {
                store.put(b("key-" + i), b("value-" + i));
            }
            store.flushMemtables();
        }
        try (RocksDbStore store = RocksDbStore.open(coldOptions(path))) {
            MemoryLookup cold = store.getFromMemory(b("key-500"));
            assertFalse(cold.known(), "the key's data block has not been read since the open");
            assertNull(cold.value());

            assertArrayEquals(b("value-500"), store.get(b("key-500")));
            MemoryLookup cached = store.getFromMemory(b("key-500"));
            assertTrue(cached.known(), "the get put the block into the block cache");
            assertArrayEquals(b("value-500"), cached.value());
        }
    }

    @Test
    void writesWithoutWaitingApplyWhenNothingHoldsThemBack() {
        try (RocksDbStore store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db")))) {
            assertTrue(store.putWithoutWaiting(b("k"), b("v")));
            assertArrayEquals(b("v"), store.get(b("k")));
            assertTrue(store.deleteWithoutWaiting(b("k")));
            assertNull(store.get(b("k")));
        }
    }

    @Test
    void aBatchWithoutWaitingLandsWhole() {
        try (RocksDbStore store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db")))) {
            store.put(b("gone"), b("v"));
            assertTrue(store.writeWithoutWaiting(new Batch().put(b("a"), b("1")).put(b("b"), b("2")).delete(b("gone"))));
            assertArrayEquals(b("1"), store.get(b("a")));
            assertArrayEquals(b("2"), store.get(b("b")));
            assertNull(store.get(b("gone")));
        }
    }

    @Test
    void withSyncNoWriteCompletesWithoutWaiting() {
        StoreOptions sync = new StoreOptions(dir.resolve("sync"), 8 << 20, 4 << 20, true, false, true);
        try (RocksDbStore store = RocksDbStore.open(sync)) {
            store.put(b("kept"), b("v"));
            assertFalse(store.putWithoutWaiting(b("k"), b("v")), "an fsync is a wait");
            assertNull(store.get(b("k")), "a refused write wrote nothing");
            assertFalse(store.deleteWithoutWaiting(b("kept")));
            assertFalse(store.writeWithoutWaiting(new Batch().put(b("k"), b("v")).delete(b("kept"))));
            assertNull(store.get(b("k")), "a refused batch wrote nothing");
            assertArrayEquals(b("v"), store.get(b("kept")));
        }
    }

    @Test
    void aClosedStoreLeavesEveryCallToTheBlockingPath() {
        RocksDbStore store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("db")));
        store.put(b("k"), b("v"));
        store.close();
        assertSame(MemoryLookup.UNKNOWN, store.getFromMemory(b("k")));
        assertFalse(store.putWithoutWaiting(b("k"), b("v")));
        assertFalse(store.deleteWithoutWaiting(b("k")));
        assertFalse(store.writeWithoutWaiting(new Batch().put(b("k"), b("v"))));
    }
}
