package dev.larder.storage;

import java.util.OptionalLong;

/**
 * Read-only engine figures for monitoring. Safe to call at any time, including during and after close: a closed
 * store answers empty rather than touching released native memory.
 */
public interface StoreStats {

    /** An engine property by name (RocksDB: {@code rocksdb.estimate-num-keys}, ...), empty when unknown or closed. */
    OptionalLong property(String name);

    /** A cumulative engine ticker by name (RocksDB: {@code BLOCK_CACHE_HIT}, ...), empty when unknown or closed. */
    OptionalLong ticker(String name);
}
