package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerObserver;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each rejection mode, made deterministic: one worker held on a gate, its 16-slot queue filled, then one more
 * request. Every request must get exactly one answer; the leak guard checks every buffer was released.
 */
@ExtendWith(LeakDetection.class)
class RejectionModesTest {

    private static final int QUEUE = 16;

    @TempDir
    Path dir;

    private final List<RawHttp> connections = new ArrayList<>();
    private TestServer larder;
    private GatedStore gated;

    /** Run sizes the workers reported, in order. */
    private final List<Integer> runs = new java.util.concurrent.CopyOnWriteArrayList<>();

    private void start(RejectionMode mode, Duration maxQueueDelay, Duration shutdownTimeout) {
        AtomicReference<GatedStore> ref = new AtomicReference<>();
        larder = new TestServer(dir, o -> o.ioThreads(1).workers(1).queueSize(QUEUE).rejection(mode)
                .maxQueueDelay(maxQueueDelay).shutdownTimeout(shutdownTimeout),
                GatedStore.into(ref), new ServerObserver() {
                    @Override
                    public void workerRun(int tasks) {
                        runs.add(tasks);
                    }
                });
        gated = ref.get();
    }

    @AfterEach
    void stop() throws Exception {
        gated.open();
        for (RawHttp c : connections) {
            c.close();
        }
        larder.close();
    }

    private RawHttp send(String method, String target, String body) throws Exception {
        RawHttp c = larder.connect();
        connections.add(c);
        c.send(RawHttp.request(method, target, body));
        return c;
    }

    /** Holds the only worker on the gate and fills its queue with {@code q0..q15}, in that order. */
    private List<RawHttp> fillQueue() throws Exception {
        RawHttp blocker = send("PUT", "/v0/entity?id=block-0", "held");
        gated.awaitBlocked(1);
        List<RawHttp> queued = new ArrayList<>();
        queued.add(blocker);
        for (int i = 0; i < QUEUE; i++) {
            queued.add(send("PUT", "/v0/entity?id=q" + i, "v" + i));
            awaitPending(i + 1);
        }
        return queued;
    }

    private void awaitPending(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (larder.server.pendingPerWorker()[0] < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("queue never reached " + n);
            }
            Thread.sleep(1);
        }
    }

    private int get(String id) throws Exception {
        try (RawHttp c = larder.connect()) {
            return c.exchange("GET", "/v0/entity?id=" + id, null).status();
        }
    }

    @Test
    void abortAnswersTheNewcomer503AtOnce() throws Exception {
        start(RejectionMode.ABORT, Duration.ZERO, Duration.ofSeconds(10));
        List<RawHttp> queued = fillQueue();
        RawHttp overflow = send("PUT", "/v0/entity?id=overflow", "x");
        RawHttp.Response rejected = overflow.read(); // while the gate is still closed
        assertEquals(503, rejected.status());
        assertEquals("1", rejected.header("retry-after"));
        assertEquals(QUEUE, larder.server.pendingPerWorker()[0], "the queue never exceeds its bound");
        gated.open();
        for (RawHttp c : queued) {
            assertEquals(201, c.read().status());
        }
        assertEquals(404, get("overflow"));
        assertEquals(200, get("q0"));
    }

    /**
     * A 503 is answered while the event loop is handing its iteration's work to the workers, and it starts the
     * connection's next pipelined request right there: that request must be handed over too, not dropped.
     */
    @Test
    void abortAnswersEveryRequestPipelinedBehindARefusedOne() throws Exception {
        start(RejectionMode.ABORT, Duration.ZERO, Duration.ofSeconds(10));
        List<RawHttp> queued = fillQueue();
        StringBuilder pipelined = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            pipelined.append(RawHttp.request("PUT", "/v0/entity?id=p" + i, "v"));
        }
        RawHttp c = larder.connect();
        connections.add(c);
        c.send(pipelined.toString());
        for (int i = 0; i < 40; i++) {
            assertEquals(503, c.read().status(), "pipelined request " + i); // the gate is still closed
        }
        gated.open();
        for (RawHttp q : queued) {
            assertEquals(201, q.read().status());
        }
        assertEquals(404, get("p39"));
    }

    /**
     * What a worker finds queued it runs as one run: consecutive GETs as one MultiGet, consecutive writes as one
     * WriteBatch. Each answer must be what that request would have got alone, in queue order.
     */
    @Test
    void aQueuedRunOfReadsAndWritesAnswersEachAsIfAlone() throws Exception {
        start(RejectionMode.ABORT, Duration.ZERO, Duration.ofSeconds(10));
        RawHttp setup = larder.connect();
        connections.add(setup);
        assertEquals(201, setup.exchange("PUT", "/v0/entity?id=a", "one").status());
        assertEquals(201, setup.exchange("PUT", "/v0/entity?id=gone", "old").status());
        RawHttp blocker = send("PUT", "/v0/entity?id=block-0", "held");
        gated.awaitBlocked(1);
        String[][] queued = {
            {"GET", "a", null}, {"GET", "missing", null}, {"GET", "gone", null},
            {"PUT", "b", "two"}, {"DELETE", "gone", null}, {"PUT", "a", "three"}, {"PUT", "e", ""},
            {"GET", "a", null}, {"GET", "b", null}, {"GET", "gone", null}, {"GET", "e", null},
        };
        List<RawHttp> clients = new ArrayList<>();
        for (int i = 0; i < queued.length; i++) {
            clients.add(send(queued[i][0], "/v0/entity?id=" + queued[i][1], queued[i][2]));
            awaitPending(i + 1);
        }
        gated.open();
        assertEquals(201, blocker.read().status());
        String[] expected = {"200 one", "404", "200 old", "201", "202", "201", "201", "200 three", "200 two", "404", "200 "};
        for (int i = 0; i < queued.length; i++) {
            RawHttp.Response r = clients.get(i).read();
            String got = r.status() == 200 ? "200 " + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8)
                    : String.valueOf(r.status());
            assertEquals(expected[i], got, queued[i][0] + " " + queued[i][1] + " (queued #" + i + ")");
        }
        assertEquals(3, gated.multiKeyCalls(), "two MultiGets and one WriteBatch");
        // The setup PUTs and the blocker ran alone; the eleven queued behind the blocker made one run.
        assertEquals(11, runs.get(runs.size() - 1));
    }

    @Test
    void discardOldestAnswersTheOldestWaiter503AndQueuesTheNewcomer() throws Exception {
        start(RejectionMode.DISCARD_OLDEST, Duration.ZERO, Duration.ofSeconds(10));
        List<RawHttp> queued = fillQueue();
        RawHttp newcomer = send("PUT", "/v0/entity?id=newcomer", "x");
        RawHttp oldest = queued.get(1); // q0: the first to have been queued behind the blocker
        RawHttp.Response victim = oldest.read();
        assertEquals(503, victim.status());
        assertEquals("1", victim.header("retry-after"));
        gated.open();
        assertEquals(201, queued.get(0).read().status());
        for (RawHttp c : queued.subList(2, queued.size())) {
            assertEquals(201, c.read().status());
        }
        assertEquals(201, newcomer.read().status());
        assertEquals(404, get("q0"));
        assertEquals(200, get("newcomer"));
    }

    @Test
    void callerRunsMakesTheEventLoopDoTheWorkSoReadsSlowDown() throws Exception {
        start(RejectionMode.CALLER_RUNS, Duration.ZERO, Duration.ofSeconds(10));
        List<RawHttp> queued = fillQueue();
        // This one cannot queue, so the (only) event loop runs it itself and blocks on the gate...
        RawHttp inline = send("PUT", "/v0/entity?id=block-inline", "x");
        gated.awaitBlocked(1);
        // ...and while it does, nothing else on that loop is read or answered: backpressure.
        RawHttp status = send("GET", "/v0/status", null);
        status.socket().setSoTimeout(300);
        assertThrows(SocketTimeoutException.class, status::read);
        status.socket().setSoTimeout(10_000);
        gated.open();
        assertEquals(201, inline.read().status());
        assertEquals(200, status.read().status());
        for (RawHttp c : queued) {
            assertEquals(201, c.read().status());
        }
        assertEquals(200, get("block-inline"));
    }

    @Test
    void requestsThatWaitedPastMaxQueueDelayAre503WithoutTouchingStorage() throws Exception {
        // The blocker queues too, and must reach storage within the delay on a slow machine: 500 ms, not 50.
        start(RejectionMode.ABORT, Duration.ofMillis(500), Duration.ofSeconds(10));
        RawHttp blocker = send("PUT", "/v0/entity?id=block-0", "held");
        gated.awaitBlocked(1);
        RawHttp late = send("PUT", "/v0/entity?id=late", "x");
        awaitPending(1);
        Thread.sleep(1_500);
        gated.open();
        assertEquals(201, blocker.read().status());
        RawHttp.Response r = late.read();
        assertEquals(503, r.status());
        assertTrue(r.text().contains("max-queue-delay"), r.text());
        assertEquals(404, get("late"));
    }

    @Test
    void shutdownLetsRunningWorkFinishAndAnswersTheQueuedRest503() throws Exception {
        start(RejectionMode.ABORT, Duration.ZERO, Duration.ofMillis(300));
        List<RawHttp> queued = fillQueue();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(larder.server::close);
        // The queued requests cannot run while the worker is held: after the timeout they are answered 503.
        for (RawHttp c : queued.subList(1, queued.size())) {
            RawHttp.Response r = c.read();
            assertEquals(503, r.status());
            assertTrue(r.text().contains("shutting down"), r.text());
        }
        gated.open();
        assertEquals(201, queued.get(0).read().status(), "the running request completes and is answered");
        closing.get(20, TimeUnit.SECONDS);
        assertThrows(java.io.IOException.class, () -> larder.connect().close(), "no longer accepting");
    }
}
