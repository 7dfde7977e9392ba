package dev.larder.server;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.larder.storage.Batch;
import dev.larder.storage.RangeCursor;
import dev.larder.storage.Store;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * A real store whose calls on keys starting with {@code block} wait until the test opens the gate: the way to
 * hold a worker busy and fill its queue deterministically.
 */
final class GatedStore extends ForwardingStore {

    private final CountDownLatch gate = new CountDownLatch(1);
    private final Semaphore entered = new Semaphore(0);
    private final AtomicInteger multiKeyCalls = new AtomicInteger();

    GatedStore(Store delegate) {
        super(delegate);
    }

    /** A {@link TestServer} store wrapper that gates the real store and leaves the gate in {@code gate}. */
    static UnaryOperator<Store> into(AtomicReference<GatedStore> gate) {
        return store -> {
            gate.set(new GatedStore(store));
            return gate.get();
        };
    }

    /** How many {@link #getAll} and {@link #write} calls there were: storage calls made for several requests. */
    int multiKeyCalls() {
        return multiKeyCalls.get();
    }

    void open() {
        gate.countDown();
    }

    /** Waits until {@code n} gated calls are blocked. */
    void awaitBlocked(int n) throws InterruptedException {
        if (!entered.tryAcquire(n, 10, TimeUnit.SECONDS)) {
            throw new AssertionError("gated calls did not arrive");
        }
    }

    private void pass(byte[] key) {
        if (new String(key, UTF_8).startsWith("block")) {
            entered.release();
            try {
                if (!gate.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("gate never opened");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    public byte[] get(byte[] key) {
        pass(key);
        return delegate.get(key);
    }

    @Override
    public void put(byte[] key, byte[] value) {
        pass(key);
        delegate.put(key, value);
    }

    @Override
    public void delete(byte[] key) {
        pass(key);
        delegate.delete(key);
    }

    /** Gated like single calls, then RocksDB's own MultiGet, so that path is what tests exercise. */
    @Override
    public List<byte[]> getAll(List<byte[]> keys) {
        keys.forEach(this::pass);
        multiKeyCalls.incrementAndGet();
        return delegate.getAll(keys);
    }

    /** Gated like single calls, then RocksDB's own WriteBatch. */
    @Override
    public void write(Batch batch) {
        batch.mutations().forEach(m -> pass(m.key()));
        multiKeyCalls.incrementAndGet();
        delegate.write(batch);
    }

    @Override
    public RangeCursor range(byte[] start, byte[] end) {
        pass(start);
        return delegate.range(start, end);
    }
}
