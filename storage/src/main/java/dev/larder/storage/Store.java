package dev.larder.storage;

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

    /** Stores {@code value} under {@code key}, replacing any previous value; returns once durable per {@link StoreOptions}. */
    void put(byte[] key, byte[] value);

    /** Removes {@code key}; removing an absent key is not an error. */
    void delete(byte[] key);

    /**
     * A cursor over keys {@code k} with {@code start <= k < end}, ascending; {@code end == null} means to the last key.
     * The caller must close it.
     */
    RangeCursor range(byte[] start, byte[] end);

    /** Engine counters and gauges by name (for example {@code estimate-num-keys}); empty when closed. */
    StoreStats stats();

    /** Makes every acknowledged write durable and releases the engine. Idempotent. */
    @Override
    void close();
}
