package dev.larder.storage;

import java.util.ArrayList;
import java.util.List;

/**
 * Puts and deletes to apply together with {@link Store#write}: one write-ahead-log append (and, in sync mode, one
 * fsync) for all of them instead of one each. Not thread-safe; build it on one thread and hand it over.
 */
public final class Batch {

    /** One put ({@code value != null}) or delete ({@code value == null}). */
    public record Mutation(byte[] key, byte[] value) {
        public boolean isDelete() {
            return value == null;
        }
    }

    private final List<Mutation> mutations = new ArrayList<>();

    public Batch put(byte[] key, byte[] value) {
        mutations.add(new Mutation(key, value == null ? new byte[0] : value));
        return this;
    }

    public Batch delete(byte[] key) {
        mutations.add(new Mutation(key, null));
        return this;
    }

    public int size() {
        return mutations.size();
    }

    /** In the order they were added, which is the order they take effect. */
    public List<Mutation> mutations() {
        return mutations;
    }
}
