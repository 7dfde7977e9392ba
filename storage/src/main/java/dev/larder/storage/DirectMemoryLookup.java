package dev.larder.storage;

import java.nio.ByteBuffer;
import org.rocksdb.Holder;
import org.rocksdb.KeyMayExist;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;

/**
 * One thread's memory-only lookups ({@code KeyMayExist} at the block-cache tier) through two direct buffers it keeps.
 *
 * <p>Why not RocksJava's {@code keyMayExist(ReadOptions, byte[], Holder)}: its native side looks the class
 * {@code byte[]} up by name on every call (JNI {@code FindClass}: a symbol-table lookup and a walk of the caller's
 * stack) and answers with an array of two new arrays. On a GET at 40k/s that was 5.5% of the server's CPU
 * (docs/performance.md, "Session 29"). The direct variant copies the value into a buffer and answers with two ints.
 *
 * <p>A value larger than the buffers it keeps is read the byte[] way, once: a direct buffer made for one lookup would
 * be zero-filled on the event loop and freed only when a GC gets to it, and values that large are rare.
 *
 * <p>Not thread-safe: one instance per thread ({@link RocksDbStore} keeps them in a {@link ThreadLocal}).
 */
final class DirectMemoryLookup {

    /** The most each kept buffer grows to; a longer key or value is looked up the byte[] way. */
    static final int KEPT_CAPACITY = 64 * 1024;
    private static final int INITIAL_KEY_CAPACITY = 256;
    private static final int INITIAL_VALUE_CAPACITY = 4 * 1024;

    private ByteBuffer key = ByteBuffer.allocateDirect(INITIAL_KEY_CAPACITY);
    private ByteBuffer value = ByteBuffer.allocateDirect(INITIAL_VALUE_CAPACITY);

    MemoryLookup lookup(RocksDB db, ReadOptions options, byte[] keyBytes) {
        if (keyBytes.length > KEPT_CAPACITY) {
            return lookupWithArrays(db, options, keyBytes);
        }
        key = buffer(key, keyBytes.length);
        // RocksJava's native side reads the key from the buffer's start, whatever its position: keep it at 0.
        key.clear();
        key.put(keyBytes).flip();
        value.clear();
        KeyMayExist found = db.keyMayExist(options, key, value);
        switch (found.exists) {
            case kNotExist:
                return MemoryLookup.ABSENT;
            case kExistsWithoutValue:
                return MemoryLookup.UNKNOWN;
            default:
                break;
        }
        if (found.valueLength <= value.capacity()) {
            byte[] out = new byte[found.valueLength];
            value.get(out);
            return MemoryLookup.found(out);
        }
        // Only part of the value fit: look again (a write in between may have changed it) the byte[] way past the
        // size kept, else with room for the whole of it.
        if (found.valueLength > KEPT_CAPACITY) {
            return lookupWithArrays(db, options, keyBytes);
        }
        value = buffer(value, found.valueLength);
        return lookup(db, options, keyBytes);
    }

    private static MemoryLookup lookupWithArrays(RocksDB db, ReadOptions options, byte[] keyBytes) {
        Holder<byte[]> found = new Holder<>();
        if (!db.keyMayExist(options, keyBytes, found)) {
            return MemoryLookup.ABSENT;
        }
        return found.getValue() == null ? MemoryLookup.UNKNOWN : MemoryLookup.found(found.getValue());
    }

    /**
     * {@code current} if it holds {@code length} (at most {@link #KEPT_CAPACITY}) bytes, else a new buffer that does,
     * at least twice the size of {@code current} up to that limit.
     */
    private static ByteBuffer buffer(ByteBuffer current, int length) {
        if (length <= current.capacity()) {
            return current;
        }
        return ByteBuffer.allocateDirect(Math.max(length, Math.min(current.capacity() * 2, KEPT_CAPACITY)));
    }
}
