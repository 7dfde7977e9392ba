package dev.larder.storage;

import java.util.ArrayList;
import java.util.List;

/**
 * An ordered byte-key/byte-value store. Keys compare as unsigned bytes.
 *
 * <p>Implementations are thread-safe: any thread may call any method, except that a {@link RangeCursor}
 * belongs to one thread at a time. Every failure of the underlying engine surfaces as a {@link StoreException}
 * naming the operation.
 */
public interface Store extends AutoCloseable {

    /** The value stored under {@code key}, or {@code null} when there is none. */
    byte[] get(byte[] key);

    /**
     * The values stored under {@code keys}, in the same order, {@code null} where there is none. An implementation
     * that can (RocksDB's MultiGet) looks them up together; this default looks them up one by one.
     */
    default List<byte[]> getAll(List<byte[]> keys) {
        List<byte[]> values = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            values.add(get(key));
        }
        return values;
    }

    /**
     * Looks {@code key} up in memory only (memtables and caches), never reading a file or waiting for one: a caller
     * that must not block (an event loop) answers from it when it is {@link MemoryLookup#known()} and calls
     * {@link #get} elsewhere when not. This default knows nothing.
     */
    default MemoryLookup getFromMemory(byte[] key) {
        return MemoryLookup.UNKNOWN;
    }

    /**
     * {@link #put} if it can complete without waiting: no write stall or slowdown is in force and no fsync follows
     * ({@code --sync}). {@code false}: nothing was written; call {@link #put}. This default never can.
     */
    default boolean putWithoutWaiting(byte[] key, byte[] value) {
        return false;
    }

    /** {@link #delete} if it can complete without waiting, as {@link #putWithoutWaiting}. This default never can. */
    default boolean deleteWithoutWaiting(byte[] key) {
        return false;
    }

    /**
     * {@link #write} if it can complete without waiting, as {@link #putWithoutWaiting}: all of {@code batch} or, on
     * {@code false}, nothing. This default never can.
     */
    default boolean writeWithoutWaiting(Batch batch) {
        return false;
    }

    /** Stores {@code value} under {@code key}, replacing any previous value; returns once durable per {@link StoreOptions}. */
    void put(byte[] key, byte[] value);

    /** Removes {@code key}; removing an absent key is not an error. */
    void delete(byte[] key);

    /**
     * Applies {@code batch} in order; returns once all of it is durable per {@link StoreOptions}. An implementation
     * that can (RocksDB) applies it atomically with a single log write; this default applies one mutation at a
     * time, so a failure part-way leaves the earlier ones applied.
     */
    default void write(Batch batch) {
        for (Batch.Mutation m : batch.mutations()) {
            if (m.isDelete()) {
                delete(m.key());
            } else {
                put(m.key(), m.value());
            }
        }
    }

    /**
     * A cursor over keys {@code k} with {@code start <= k < end}, ascending; {@code end == null} means to the last key.
     * The caller must close it.
     */
    RangeCursor range(byte[] start, byte[] end);

    /** Engine counters and gauges by name (for example {@code estimate-num-keys}); empty when closed. */
    StoreStats stats();

    /**
     * Whether the engine's own threads (flushes, compactions, reading new files into the cache) are at work right
     * now; {@code false} once closed. Cheap enough to ask a hundred times a second. This default has no such threads.
     */
    default boolean backgroundBusy() {
        return false;
    }

    /** Makes every acknowledged write durable and releases the engine. Idempotent. */
    @Override
    void close();
}
