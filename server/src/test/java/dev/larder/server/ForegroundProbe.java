package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.storage.Store;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the event loops and the workers report about themselves (their slice, their policy), each read on that very
 * thread, by thread name: the loops by a task submitted to each, the workers by a store that reads it on every GET.
 */
final class ForegroundProbe<T> {

    private final Supplier<T> read;
    private final Map<String, T> workers = new ConcurrentHashMap<>();

    ForegroundProbe(Supplier<T> read) {
        this.read = read;
    }

    /** {@code store}, reading the probe on the thread of every GET it serves. */
    Store recordingWorkers(Store store) {
        return new ForwardingStore(store) {
            @Override
            public byte[] get(byte[] key) {
                workers.put(Thread.currentThread().getName(), read.get());
                return super.get(key);
            }

            @Override
            public List<byte[]> getAll(List<byte[]> keys) {
                workers.put(Thread.currentThread().getName(), read.get());
                return delegate.getAll(keys);
            }
        };
    }

    /** What each thread that ran a GET read so far. */
    Map<String, T> workers() {
        return workers;
    }

    /** What each event loop of {@code larder} reads now. */
    Map<String, T> loops(TestServer larder) throws Exception {
        Map<String, T> loops = new ConcurrentHashMap<>();
        for (EventExecutor loop : larder.server.eventLoops()) {
            loop.submit(() -> loops.put(Thread.currentThread().getName(), read.get())).get(10, TimeUnit.SECONDS);
        }
        return loops;
    }

    /**
     * Connections are spread over the two event loops in turn and each loop prefers a different worker (WorkerChoice),
     * so a GET on each of four reaches both.
     */
    static void exerciseBothWorkers(TestServer larder) throws IOException {
        for (int i = 0; i < 4; i++) {
            try (RawHttp c = larder.connect()) {
                c.send(RawHttp.request("PUT", "/v0/entity?id=k" + i, "v" + i));
                assertEquals(201, c.read().status());
                c.send(RawHttp.request("GET", "/v0/entity?id=k" + i, null));
                assertEquals(200, c.read().status());
            }
        }
    }
}
