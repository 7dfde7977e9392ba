package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.CoalesceWait;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.metrics.LarderMeters;
import dev.larder.storage.Store;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --io-coalesce}: under load the event loop sleeps in the coalescing wait before it blocks, every request is
 * still answered with the right value over real sockets, and a lone request on an idle server is answered. With
 * {@code --io-coalesce-wait spin} it spins through the wait while the store's background is idle and sleeps while it
 * works. How the loop waited is read from its own stack while the load runs (no clock, no timing assertion). Every
 * request is handed to a worker ({@code --inline-batch 0}), so a worker's answer arrives during the wait.
 */
@ExtendWith(LeakDetection.class)
class IoCoalesceTest {

    @TempDir
    Path dir;

    @Test
    void underLoadTheLoopWaitsBeforeBlockingAndEveryAnswerIsRight() throws Exception {
        try (TestServer larder = new TestServer(dir,
                o -> o.ioThreads(1).workers(2).inlineBatch(0).ioCoalesce(Duration.ofMillis(2)))) {
            Set<Wait> seen = loadAndWatch(larder);
            assertTrue(seen.contains(Wait.SLEEP), "the loop never waited in the coalescing sleep under load");
            assertFalse(seen.contains(Wait.SPIN), "the loop spun, asked to sleep");
            assertEquals(-1.0, larder.server.coalesceSpinSeconds(), "a spin time where the loop never spins");
        }
    }

    @Test
    void withoutItTheLoopNeverWaitsThere() throws Exception {
        try (TestServer larder = new TestServer(dir, o -> o.ioThreads(1).workers(2).inlineBatch(0))) {
            assertEquals(Set.of(), loadAndWatch(larder), "the loop waited in a coalescing wait it was not asked for");
        }
    }

    @Test
    void spinningTheLoopSpinsThroughItsWindowsWhileTheBackgroundIsIdleAndEveryAnswerIsRight() throws Exception {
        try (TestServer larder = new TestServer(dir, o -> o.ioThreads(1).workers(2).inlineBatch(0)
                .ioCoalesce(Duration.ofMillis(2)).ioCoalesceWait(CoalesceWait.SPIN), s -> background(s, false),
                ServerObserver.NOOP);
             LarderMeters meters = new LarderMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
            meters.bindServer(larder.server);
            assertEquals(Set.of(Wait.SPIN), loadAndWatch(larder), "how the loop waited with the background idle");
            assertTrue(larder.server.describe().contains("io-coalesce-wait=spin"), larder.server.describe());
            double spun = Exposition.value(((PrometheusMeterRegistry) meters.registry()).scrape(),
                    "larder_io_coalesce_spin_seconds_total").orElse(-1);
            assertTrue(spun > 0, "spin time in the metric: " + spun);
        }
    }

    @Test
    void spinningTheLoopSleepsThroughSomeOfItsWindowsWhileTheBackgroundWorks() throws Exception {
        try (TestServer larder = new TestServer(dir, o -> o.ioThreads(1).workers(2).inlineBatch(0)
                .ioCoalesce(Duration.ofMillis(2)).ioCoalesceWait(CoalesceWait.SPIN), s -> background(s, true),
                ServerObserver.NOOP)) {
            assertEquals(Set.of(Wait.SLEEP, Wait.SPIN), loadAndWatch(larder),
                    "how the loop waited with the background at work");
            assertTrue(larder.server.coalesceSpinSeconds() > 0, "spin time: " + larder.server.coalesceSpinSeconds());
        }
    }

    /** The real store, with its background reported as {@code busy} all along. */
    private static Store background(Store store, boolean busy) {
        return new ForwardingStore(store) {
            @Override
            public boolean backgroundBusy() {
                return busy;
            }
        };
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

    /** How a sample of the loop's stack caught it waiting out a coalescing window. */
    private enum Wait { SLEEP, SPIN }

    /**
     * Eight connections PUT and read back their own keys while this thread samples the event loop's stack; how the
     * samples caught it waiting in the coalescing window.
     */
    private static Set<Wait> loadAndWatch(TestServer larder) throws Exception {
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
            Set<Wait> seen = EnumSet.noneOf(Wait.class);
            while (!allDone(work)) {
                loopInCoalescingWait(seen);
                Thread.sleep(1);
            }
            for (Future<?> f : work) {
                f.get();
            }
            return seen;
        } finally {
            clients.shutdownNow();
        }
    }

    private static boolean allDone(List<Future<?>> work) {
        return work.stream().allMatch(Future::isDone);
    }

    private static void loopInCoalescingWait(Set<Wait> seen) {
        for (var e : Thread.getAllStackTraces().entrySet()) {
            if (!e.getKey().getName().startsWith("larder-io")) {
                continue;
            }
            StackTraceElement[] stack = e.getValue();
            for (int i = 0; i + 1 < stack.length; i++) {
                if (stack[i].getMethodName().equals("parkNanos")
                        && stack[i + 1].getClassName().endsWith("CoalescingIoHandler")) {
                    seen.add(Wait.SLEEP);
                }
                if (stack[i].getMethodName().equals("spinUntil")
                        && stack[i].getClassName().endsWith("CoalescingIoHandler")) {
                    seen.add(Wait.SPIN);
                }
            }
        }
    }
}
