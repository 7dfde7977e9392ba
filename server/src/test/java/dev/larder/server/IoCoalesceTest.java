package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --io-coalesce}: under load the event loop sleeps in the coalescing wait before it blocks, every request is
 * still answered with the right value over real sockets, and a lone request on an idle server is answered.
 * Whether the loop waited is read from its own stack while the load runs (no clock, no timing assertion). Every
 * request is handed to a worker ({@code --inline-batch 0}), so a worker's answer arrives during the sleep.
 */
@ExtendWith(LeakDetection.class)
class IoCoalesceTest {

    @TempDir
    Path dir;

    @Test
    void underLoadTheLoopWaitsBeforeBlockingAndEveryAnswerIsRight() throws Exception {
        try (TestServer larder = new TestServer(dir,
                o -> o.ioThreads(1).workers(2).inlineBatch(0).ioCoalesce(Duration.ofMillis(2)))) {
            assertTrue(loadAndWatch(larder), "the loop never waited in the coalescing sleep under load");
        }
    }

    @Test
    void withoutItTheLoopNeverWaitsThere() throws Exception {
        try (TestServer larder = new TestServer(dir, o -> o.ioThreads(1).workers(2).inlineBatch(0))) {
            assertFalse(loadAndWatch(larder), "the loop waited in a coalescing sleep it was not asked for");
        }
    }

    @Test
    void aLoneRequestOnAnIdleServerIsAnswered() throws Exception {
        try (TestServer larder = new TestServer(dir,
                o -> o.ioThreads(1).workers(1).inlineBatch(0).ioCoalesce(Duration.ofMillis(5)));
             RawHttp client = larder.connect()) {
            for (int i = 0; i < 5; i++) {
                Thread.sleep(50);
                assertEquals(201, client.exchange("PUT", "/v0/entity?id=lone" + i, "v" + i).status());
                Thread.sleep(50);
                RawHttp.Response got = client.exchange("GET", "/v0/entity?id=lone" + i, null);
                assertEquals(200, got.status());
                assertEquals("v" + i, got.text());
            }
        }
    }

    /**
     * Eight connections PUT and read back their own keys while this thread samples the event loop's stack; true
     * when a sample caught it in the coalescing sleep.
     */
    private static boolean loadAndWatch(TestServer larder) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                int conn = c;
                work.add(clients.submit(() -> {
                    try (RawHttp client = larder.connect()) {
                        for (int i = 0; i < 300; i++) {
                            String id = "/v0/entity?id=c" + conn + "-" + i;
                            assertEquals(201, client.exchange("PUT", id, "value-" + conn + "-" + i).status());
                            RawHttp.Response got = client.exchange("GET", id, null);
                            assertEquals(200, got.status(), id);
                            assertEquals("value-" + conn + "-" + i, got.text(), id);
                        }
                    }
                    return null;
                }));
            }
            boolean waited = false;
            while (!allDone(work)) {
                waited |= loopInCoalescingSleep();
                Thread.sleep(1);
            }
            for (Future<?> f : work) {
                f.get();
            }
            return waited;
        } finally {
            clients.shutdownNow();
        }
    }

    private static boolean allDone(List<Future<?>> work) {
        return work.stream().allMatch(Future::isDone);
    }

    private static boolean loopInCoalescingSleep() {
        for (var e : Thread.getAllStackTraces().entrySet()) {
            if (!e.getKey().getName().startsWith("larder-io")) {
                continue;
            }
            StackTraceElement[] stack = e.getValue();
            for (int i = 0; i + 1 < stack.length; i++) {
                if (stack[i].getMethodName().equals("parkNanos")
                        && stack[i + 1].getClassName().endsWith("CoalescingIoHandler")) {
                    return true;
                }
            }
        }
        return false;
    }
}
