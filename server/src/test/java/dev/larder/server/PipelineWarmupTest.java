package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.admin.AdminEndpoint;
import dev.larder.server.admin.AdminOptions;
import dev.larder.server.admin.AdminServer;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.storage.RangeCursor;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The warm-up against a real server: every kind of request answered as expected, and nothing left behind. */
class PipelineWarmupTest {

    @TempDir
    Path dir;

    @Test
    void everyRequestKindIsAnsweredAndTheWarmupKeysAreGoneAfterwards() throws Exception {
        AtomicLong requests = new AtomicLong();
        ServerObserver counting = countingRequests(requests);
        // The sync mode, workers with every request handed over, and the default (quick calls on the loop).
        for (int[] config : new int[][] {{0, 0}, {2, 0}, {2, ServerOptions.DEFAULT_INLINE_BATCH}}) {
            int workers = config[0];
            int inlineBatch = config[1];
            requests.set(0);
            long sent;
            try (TestServer server = new TestServer(dir.resolve("w" + workers + "i" + inlineBatch),
                    o -> o.workers(workers).inlineBatch(inlineBatch), s -> s, counting)) {
                sent = new PipelineWarmup(server.address()).run(2_000);
                assertTrue(sent >= 2_000, "sent " + sent);
                assertNoKeyLeft(server);
            }
            // Counted after close: a request is counted once its answer is written, so the client can hold the
            // last answer before the loop counts it; close() waits for the loops to end.
            assertEquals(sent, requests.get(), "the server answered every warm-up request");
        }
    }

    @Test
    void roundsOfLikeCallsReachTheWorkersAsRunsAndLeaveNothingBehind() throws Exception {
        AtomicLong requests = new AtomicLong();
        AtomicLong longestRun = new AtomicLong();
        ServerObserver observer = new ServerObserver() {
            @Override
            public void requestCompleted(String method, String route, int status, long nanos) {
                requests.incrementAndGet();
            }

            @Override
            public void workerRun(int tasks) {
                longestRun.accumulateAndGet(tasks, Math::max);
            }
        };
        long sent;
        try (TestServer server = new TestServer(dir.resolve("in-step"), o -> o.workers(2).inlineBatch(0), s -> s,
                observer)) {
            sent = new PipelineWarmup(server.address()).runInStep(32, 50);
            assertEquals(32 * 51, sent, "50 rounds of PUTs and GETs and a round of DELETEs on each connection");
            assertNoKeyLeft(server);
        }
        // After close, as above: the last answers may be on the wire before they are counted.
        assertEquals(sent, requests.get(), "the server answered every request");
        assertTrue(longestRun.get() > 1, "no worker ever took more than one call at a time");
    }

    @Test
    void connectionsComeAndGoThroughoutTheWarmup() throws Exception {
        AtomicLong opened = new AtomicLong();
        AtomicLong closed = new AtomicLong();
        ServerObserver connections = new ServerObserver() {
            @Override
            public void connectionOpened() {
                opened.incrementAndGet();
            }

            @Override
            public void connectionClosed() {
                closed.incrementAndGet();
            }
        };
        try (TestServer server = new TestServer(dir.resolve("churn"), o -> o, s -> s, connections)) {
            long sent = new PipelineWarmup(server.address()).run(2_000);
            // One pipelined connection and 8 shaped ones, plus one new connection per round of about 152 requests.
            long rounds = sent / 152;
            assertTrue(opened.get() >= 9 + rounds - 1, "opened " + opened.get() + " for " + sent + " requests");
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (closed.get() < opened.get() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(opened.get(), closed.get(), "every warm-up connection was closed");
        }
    }

    @Test
    void anAdminListenerIsWarmedBetweenTheRoundsOnEveryPathItIsGiven() throws Exception {
        AtomicLong live = new AtomicLong();
        AtomicLong ready = new AtomicLong();
        Map<String, AdminEndpoint> endpoints = Map.of(
                "/health/live", counting(live),
                "/health/ready", counting(ready));
        try (TestServer server = new TestServer(dir.resolve("admin"), o -> o)) {
            AdminServer admin = AdminServer.start(new AdminOptions("127.0.0.1", 0), server.server.transport(),
                    endpoints);
            try {
                long sent = new PipelineWarmup(server.address(), admin.localAddress(),
                        List.of("/health/live", "/health/ready")).run(3_000);
                assertTrue(live.get() > 5 && ready.get() > 5, "admin requests: live " + live + ", ready " + ready);
                assertTrue(sent >= 3_000 + live.get() + ready.get() - 1, "sent " + sent);
            } finally {
                admin.close();
            }
        }
    }

    @Test
    void anAdminPathThatDoesNotAnswer200FailsTheWarmupLoudly() throws Exception {
        try (TestServer server = new TestServer(dir.resolve("admin404"), o -> o)) {
            AdminServer admin = AdminServer.start(new AdminOptions("127.0.0.1", 0), server.server.transport(),
                    Map.of("/health/live", counting(new AtomicLong())));
            try {
                PipelineWarmup warmup = new PipelineWarmup(server.address(), admin.localAddress(),
                        List.of("/health/live", "/nowhere"));
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> warmup.run(2_000));
                assertTrue(e.getMessage().contains("/nowhere"), e.getMessage());
            } finally {
                admin.close();
            }
        }
    }

    /** An observer that adds each completed request to {@code requests}. */
    private static ServerObserver countingRequests(AtomicLong requests) {
        return new ServerObserver() {
            @Override
            public void requestCompleted(String method, String route, int status, long nanos) {
                requests.incrementAndGet();
            }
        };
    }

    private static AdminEndpoint counting(AtomicLong count) {
        return (ctx, request) -> {
            count.incrementAndGet();
            FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.copiedBuffer("ok\n", StandardCharsets.US_ASCII));
            ok.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, ok.content().readableBytes());
            ctx.writeAndFlush(ok);
        };
    }

    @Test
    void aServerThatIsNotListeningFailsTheWarmupLoudly() throws Exception {
        java.net.InetSocketAddress closed;
        try (TestServer server = new TestServer(dir.resolve("gone"), o -> o)) {
            closed = server.address();
        }
        assertThrows(java.io.IOException.class, () -> new PipelineWarmup(closed).run(10));
    }

    @Test
    void heldConnectionsSurviveTimeoutChecksEveryMillisecondAndAnIdleTimeoutClosesThem() throws Exception {
        AtomicLong closed = new AtomicLong();
        ServerObserver connections = new ServerObserver() {
            @Override
            public void connectionClosed() {
                closed.incrementAndGet();
            }
        };
        Runnable hold300ms = () -> LockSupport.parkNanos(Duration.ofMillis(300).toNanos());
        try (TestServer server = new TestServer(dir.resolve("held"),
                o -> o.timeoutCheckPeriod(Duration.ofMillis(1)), s -> s, connections)) {
            new PipelineWarmup(server.address()).holdConnections(16, hold300ms);
        }
        // The same hold against a 100 ms idle timeout: the checks close the idle connections, and the second round
        // of questions finds them gone.
        try (TestServer server = new TestServer(dir.resolve("idle"),
                o -> o.idleTimeout(Duration.ofMillis(100)).timeoutCheckPeriod(Duration.ofMillis(1)), s -> s,
                connections)) {
            closed.set(0);
            assertThrows(IOException.class, () -> new PipelineWarmup(server.address()).holdConnections(16, hold300ms));
            assertTrue(closed.get() > 0, "the idle timeout closed none of the held connections");
        }
    }

    private static void assertNoKeyLeft(TestServer server) {
        try (RangeCursor all = server.store.range(new byte[0], null)) {
            assertFalse(all.next(), "a warm-up key was left in the store");
        }
    }
}
