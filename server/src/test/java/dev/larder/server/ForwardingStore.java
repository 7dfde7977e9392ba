package dev.larder.server;

import dev.larder.storage.RangeCursor;
import dev.larder.storage.Store;
import dev.larder.storage.StoreStats;

/**
 * A real store with hooks: tests extend it to delay, gate or fail some calls and let the rest through.
 * {@link #write} is deliberately not forwarded: {@code Store}'s default applies a batch through {@link #put} and
 * {@link #delete}, so the hooks see every key a worker writes in a batch.
 */
public abstract class ForwardingStore implements Store {

    protected final Store delegate;

    protected ForwardingStore(Store delegate) {
        this.delegate = delegate;
    }

    @Override
    public byte[] get(byte[] key) {
        return delegate.get(key);
    }

    @Override
    public void put(byte[] key, byte[] value) {
        delegate.put(key, value);
    }

    @Override
    public void delete(byte[] key) {
        delegate.delete(key);
    }

    @Override
    public RangeCursor range(byte[] start, byte[] end) {
        return delegate.range(start, end);
    }

    @Override
    public boolean backgroundBusy() {
        return delegate.backgroundBusy();
    }

    @Override
    public StoreStats stats() {
        return delegate.stats();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
