package dev.larder.storage;

/**
 * What a lookup that may not wait for the disk found: the value, that there is none, or that memory alone cannot say
 * ({@link #UNKNOWN}: the answer is in a block that is not cached, so only {@link Store#get} can give it).
 */
public final class MemoryLookup {

    /** Memory proves there is no value: a tombstone, a bloom filter miss, or a cached block without the key. */
    public static final MemoryLookup ABSENT = new MemoryLookup(null, true);
    /** Answering would read a file. */
    public static final MemoryLookup UNKNOWN = new MemoryLookup(null, false);

    private final byte[] value;
    private final boolean known;

    private MemoryLookup(byte[] value, boolean known) {
        this.value = value;
        this.known = known;
    }

    public static MemoryLookup found(byte[] value) {
        return new MemoryLookup(value, true);
    }

    /** Whether this is the answer {@link Store#get} would give. */
    public boolean known() {
        return known;
    }

    /** The value, or {@code null} when there is none (or it is {@link #UNKNOWN}). */
    public byte[] value() {
        return value;
    }
}
