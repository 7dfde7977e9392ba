package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.larder.server.config.ForegroundPolicy;
import dev.larder.server.config.MissReads;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --foreground-policy}: with {@code fifo} the event loops and the workers run in SCHED_FIFO, as the kernel
 * reports it for each thread in {@code /proc/thread-self/stat}, read on that very thread, and the server serves; with
 * the default they are fair like any other thread.
 */
@ExtendWith(LeakDetection.class)
class ForegroundPolicyTest {

    private static final int SCHED_OTHER = 0;
    private static final int SCHED_FIFO = 1;
    private static final int CAP_SYS_NICE = 23;

    @TempDir
    Path dir;

    /** The policy of each event loop and of each thread that ran a storage call, by thread name. */
    private final ForegroundProbe<Integer> policies = new ForegroundProbe<>(OwnSlice::policy);

    @Test
    void withFifoTheEventLoopsAndTheWorkersRunInSchedFifo() throws Exception {
        assumeTrue(mayUseRealTime(), "needs Linux and CAP_SYS_NICE (root has it)");
        try (TestServer larder = start(ForegroundPolicy.FIFO)) {
            Map<String, Integer> loops = policies.loops(larder);
            assertEquals(2, loops.size(), loops.toString());
            loops.forEach((thread, policy) -> assertEquals(SCHED_FIFO, policy, thread));
            ForegroundProbe.exerciseBothWorkers(larder);
            assertEquals(2, policies.workers().size(), policies.workers().toString());
            policies.workers().forEach((thread, policy) -> {
                assertTrue(thread.startsWith("larder-worker"), thread);
                assertEquals(SCHED_FIFO, policy, thread);
            });
            assertTrue(larder.server.describe().contains("foreground-policy=fifo"), larder.server.describe());
        }
    }

    @Test
    void byDefaultTheyAreFair() throws Exception {
        assumeTrue(System.getProperty("os.name", "").startsWith("Linux"), "reads /proc");
        assertEquals(ForegroundPolicy.FAIR, ServerOptions.builder(2).build().foregroundPolicy());
        try (TestServer larder = start(ServerOptions.DEFAULT_FOREGROUND_POLICY)) {
            policies.loops(larder).forEach((thread, policy) -> assertEquals(SCHED_OTHER, policy, thread));
            ForegroundProbe.exerciseBothWorkers(larder);
            assertEquals(2, policies.workers().size(), policies.workers().toString());
            policies.workers().forEach((thread, policy) -> assertEquals(SCHED_OTHER, policy, thread));
            assertTrue(!larder.server.describe().contains("foreground-policy"), larder.server.describe());
        }
    }

    @Test
    void aSliceIsRefusedWithFifo() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServerOptions.builder(2).foregroundPolicy(ForegroundPolicy.FIFO)
                        .foregroundSlice(Duration.ofMillis(4)).build());
        assertTrue(e.getMessage().contains("foreground-slice"), e.getMessage());
    }

    private TestServer start(ForegroundPolicy policy) {
        // The GETs must reach the workers: this store answers nothing from memory, and --miss-reads auto would read
        // such misses on the loops wherever the machine has no more CPUs than the test's two loops.
        return new TestServer(dir, o -> o.ioThreads(2).workers(2).foregroundPolicy(policy)
                .missReads(MissReads.WORKERS), policies::recordingWorkers, ServerObserver.NOOP);
    }

    /** Whether this process's effective capabilities include CAP_SYS_NICE (/proc/self/status, CapEff in hex). */
    private static boolean mayUseRealTime() throws IOException {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return false;
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("CapEff:")) {
                return new BigInteger(line.substring(7).trim(), 16).testBit(CAP_SYS_NICE);
            }
        }
        return false;
    }
}
