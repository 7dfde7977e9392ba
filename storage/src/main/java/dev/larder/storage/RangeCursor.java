package dev.larder.storage;

/**
 * A forward-only position in a key range. Not thread-safe: one thread at a time, which may change between calls.
 * Holds engine resources (a snapshot-like iterator) until {@link #close()}.
 */
public interface RangeCursor extends AutoCloseable {

    /** Moves to the next entry; {@code false} once the range is exhausted. */
    boolean next();

    /** The current key; valid after {@link #next()} returned {@code true}. */
    byte[] key();

    /** The current value; valid after {@link #next()} returned {@code true}. */
    byte[] value();

    @Override
    void close();
}
