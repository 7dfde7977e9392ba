package dev.larder.storage;

import java.nio.ByteBuffer;
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
 * <p>Not thread-safe: one instance per thread ({@link RocksDbStore} keeps them in a {@link ThreadLocal}).
 */
final class DirectMemoryLookup {

    /** Larger buffers are used for the one lookup that needs them and dropped, so a rare large value pins no memory. */
    static final int KEPT_CAPACITY = 64 * 1024;
    private static final int INITIAL_KEY_CAPACITY = 256;
    private static final int INITIAL_VALUE_CAPACITY = 4 * 1024;

    private ByteBuffer key = ByteBuffer.allocateDirect(INITIAL_KEY_CAPACITY);
    private ByteBuffer value = ByteBuffer.allocateDirect(INITIAL_VALUE_CAPACITY);

    MemoryLookup lookup(RocksDB db, ReadOptions options, byte[] keyBytes) {
        ByteBuffer keyBuffer = buffer(key, keyBytes.length);
        if (keyBuffer.capacity() <= KEPT_CAPACITY) {
            key = keyBuffer;
        }
        ByteBuffer valueBuffer = value;
        while (true) {
            keyBuffer.clear();
            keyBuffer.put(keyBytes).flip();
            valueBuffer.clear();
            KeyMayExist found = db.keyMayExist(options, keyBuffer, valueBuffer);
            switch (found.exists) {
                case kNotExist:
                    return MemoryLookup.ABSENT;
                case kExistsWithoutValue:
                    return MemoryLookup.UNKNOWN;
                default:
                    break;
            }
            if (found.valueLength <= valueBuffer.capacity()) {
                byte[] out = new byte[found.valueLength];
                valueBuffer.get(out);
                return MemoryLookup.found(out);
            }
            // Only part of the value fit: look again with room for all of it (a write in between may change the
            // length again, hence the loop).
            valueBuffer = buffer(valueBuffer, found.valueLength);
            if (valueBuffer.capacity() <= KEPT_CAPACITY) {
                value = valueBuffer;
            }
        }
    }

    /** {@code current} if it holds {@code length} bytes, else a new buffer of at least twice its size that does. */
    private static ByteBuffer buffer(ByteBuffer current, int length) {
        if (length <= current.capacity()) {
            return current;
        }
        return ByteBuffer.allocateDirect(Math.max(length, Math.min(current.capacity() * 2, KEPT_CAPACITY)));
    }
}
