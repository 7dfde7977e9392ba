package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.MissReads;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

    /** The slice of each event loop and of each thread that ran a storage call, by thread name. */
    private final ForegroundProbe<Long> slices = new ForegroundProbe<>(OwnSlice::read);

    @Test
    void theEventLoopsAndTheWorkersRunWithTheAskedSlice() throws Exception {
        OwnSlice.assumeCustomSlices();
        try (TestServer larder = start(Duration.ofMillis(4))) {
            Map<String, Long> loops = slices.loops(larder);
            assertEquals(2, loops.size(), loops.toString());
            loops.forEach((thread, slice) -> assertEquals(4_000_000L, slice, thread));
            ForegroundProbe.exerciseBothWorkers(larder);
            assertEquals(2, slices.workers().size(), slices.workers().toString());
            slices.workers().forEach((thread, slice) -> {
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
            slices.loops(larder).forEach((thread, slice) -> assertEquals(kernels, slice, thread));
            ForegroundProbe.exerciseBothWorkers(larder);
            assertEquals(2, slices.workers().size(), slices.workers().toString());
            slices.workers().forEach((thread, slice) -> assertEquals(kernels, slice, thread));
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
                slices::recordingWorkers, ServerObserver.NOOP);
    }
}
