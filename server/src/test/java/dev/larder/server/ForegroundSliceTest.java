package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.MissReads;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.storage.Store;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --foreground-slice}: the event loops and the workers carry the asked EEVDF slice, as the kernel reports it
 * for each thread in {@code /proc/thread-self/sched}, read on that very thread; with the default they carry the
 * kernel's own, like any other thread. Needs Linux 6.12+ (custom slices); elsewhere the flag only warns.
 */
@ExtendWith(LeakDetection.class)
class ForegroundSliceTest {


    @TempDir
    Path dir;

    /** The slice each thread that ran a storage call had, by thread name. */
    private final Map<String, Long> workerSlices = new ConcurrentHashMap<>();

    @Test
    void theEventLoopsAndTheWorkersRunWithTheAskedSlice() throws Exception {
        OwnSlice.assumeCustomSlices();
        try (TestServer larder = start(Duration.ofMillis(4))) {
            Map<String, Long> loops = loopSlices(larder);
            assertEquals(2, loops.size(), loops.toString());
            loops.forEach((thread, slice) -> assertEquals(4_000_000L, slice, thread));
            exerciseBothWorkers(larder);
            assertEquals(2, workerSlices.size(), workerSlices.toString());
            workerSlices.forEach((thread, slice) -> {
                assertTrue(thread.startsWith("larder-worker"), thread);
                assertEquals(4_000_000L, slice, thread);
            });
        }
    }

    @Test
    void byDefaultTheyKeepTheKernelsSlice() throws Exception {
        OwnSlice.assumeCustomSlices();
        long kernels = OwnSlice.read();
        assertFalse(kernels == 4_000_000L, "this test's own thread has a custom slice");
        try (TestServer larder = start(ServerOptions.DEFAULT_FOREGROUND_SLICE)) {
            loopSlices(larder).forEach((thread, slice) -> assertEquals(kernels, slice, thread));
            exerciseBothWorkers(larder);
            assertEquals(2, workerSlices.size(), workerSlices.toString());
            workerSlices.forEach((thread, slice) -> assertEquals(kernels, slice, thread));
        }
    }

    @Test
    void aSliceTheKernelWouldClampIsRefused() {
        for (Duration bad : List.of(Duration.ofNanos(99_999), Duration.ofMillis(101), Duration.ofMillis(-1))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ServerOptions.builder(2).foregroundSlice(bad).build());
            assertTrue(e.getMessage().contains("foreground-slice"), e.getMessage());
        }
        ServerOptions.builder(2).foregroundSlice(Duration.ofNanos(100_000)).build();
        ServerOptions.builder(2).foregroundSlice(Duration.ofMillis(100)).build();
    }

    private TestServer start(Duration slice) {
        // The GETs must reach the workers: this store answers nothing from memory, and --miss-reads auto would read
        // such misses on the loops wherever the machine has no more CPUs than the test's two loops.
        return new TestServer(dir, o -> o.ioThreads(2).workers(2).foregroundSlice(slice).missReads(MissReads.WORKERS),
                this::recordingWorkerSlices, ServerObserver.NOOP);
    }

    private Store recordingWorkerSlices(Store store) {
        return new ForwardingStore(store) {
            @Override
            public byte[] get(byte[] key) {
                workerSlices.put(Thread.currentThread().getName(), OwnSlice.read());
                return super.get(key);
            }

            @Override
            public List<byte[]> getAll(List<byte[]> keys) {
                workerSlices.put(Thread.currentThread().getName(), OwnSlice.read());
                return delegate.getAll(keys);
            }
        };
    }

    private static Map<String, Long> loopSlices(TestServer larder) throws Exception {
        Map<String, Long> slices = new ConcurrentHashMap<>();
        for (EventExecutor loop : larder.server.eventLoops()) {
            loop.submit(() -> slices.put(Thread.currentThread().getName(), OwnSlice.read())).get(10, TimeUnit.SECONDS);
        }
        return slices;
    }

    /**
     * Connections are spread over the two event loops in turn and each loop prefers a different worker (WorkerChoice),
     * so a GET on each of four reaches both.
     */
    private static void exerciseBothWorkers(TestServer larder) throws IOException {
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
