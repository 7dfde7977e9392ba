package dev.larder.server;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that are slow on purpose: they trickle, idle, crowd, or never read. Each is cut off or held back by its
 * bound, and the server keeps serving everyone else. Timing bounds are generous (the machine may be shared).
 */
@ExtendWith(LeakDetection.class)
class SlowClientTest {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(2);
    private static final int HIGH_WATER_MARK = 64 * 1024;

    @TempDir
    Path dir;

    private TestServer larder;
    private GatedStore gated;
    private final AtomicInteger responses = new AtomicInteger();

    private void start(int maxConnections) {
        start(maxConnections, IDLE_TIMEOUT);
    }

    private void start(int maxConnections, Duration idleTimeout) {
        start(maxConnections, idleTimeout, o -> o);
    }

    private void start(int maxConnections, Duration idleTimeout, UnaryOperator<ServerOptions.Builder> more) {
        AtomicReference<GatedStore> ref = new AtomicReference<>();
        ServerObserver counting = new ServerObserver() {
            @Override
            public void requestCompleted(String method, String route, int status, long latencyNanos) {
                responses.incrementAndGet();
            }
        };
        larder = new TestServer(dir, o -> more.apply(o.readTimeout(READ_TIMEOUT).idleTimeout(idleTimeout)
                .maxConnections(maxConnections).writeHighWaterMark(HIGH_WATER_MARK).maxValueSize(1 << 20)),
                GatedStore.into(ref), counting);
        gated = ref.get();
    }

    @AfterEach
    void stop() {
        gated.open();
        larder.close();
    }

    /** Writes {@code bytes} one at a time every {@code intervalMillis} on its own thread until done or cut off. */
    private static Thread trickle(Socket socket, String bytes, long intervalMillis) {
        Thread t = new Thread(() -> {
            try {
                OutputStream out = socket.getOutputStream();
                for (byte b : bytes.getBytes(ISO_8859_1)) {
                    out.write(b);
                    out.flush();
                    Thread.sleep(intervalMillis);
                }
            } catch (IOException | InterruptedException e) {
                // cut off by the server: expected
            }
        }, "trickler");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void assertCutOffAfterReadTimeout(String request) throws Exception {
        try (RawHttp http = larder.connect(); RawHttp other = larder.connect()) {
            long start = System.nanoTime();
            Thread trickler = trickle(http.socket(), request, 100);
            RawHttp.Response r = http.read();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(408, r.status());
            assertTrue(http.closedByServer());
            assertTrue(waited >= READ_TIMEOUT.toMillis() - 50 && waited < READ_TIMEOUT.toMillis() + 3000,
                    "cut off after " + waited + " ms");
            assertEquals(200, other.exchange("GET", "/v0/status", null).status(), "others are still served");
            trickler.join(5000);
        }
    }

    @Test
    void headerTricklerIsCutOffAfterReadTimeout() throws Exception {
        start(100);
        // 50 bytes at 10 per second would take 5 s: the read timeout is 1 s.
        assertCutOffAfterReadTimeout("GET /v0/status HTTP/1.1\r\nHost: x\r\nX-Slow: abcdefghijk\r\n\r\n");
    }

    @Test
    void bodyTricklerIsCutOffAfterReadTimeout() throws Exception {
        start(100);
        String head = "PUT /v0/entity?id=slow HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n";
        try (RawHttp http = larder.connect()) {
            long start = System.nanoTime();
            http.send(head);
            Thread trickler = trickle(http.socket(), "b".repeat(100), 100);
            RawHttp.Response r = http.read();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(408, r.status());
            assertTrue(http.closedByServer());
            assertTrue(waited < READ_TIMEOUT.toMillis() + 3000, "cut off after " + waited + " ms");
            trickler.join(5000);
        }
        try (RawHttp http = larder.connect()) {
            assertEquals(404, http.exchange("GET", "/v0/entity?id=slow", null).status(), "nothing half-stored");
        }
    }

    @Test
    void idleKeepAliveConnectionsAreClosedAfterIdleTimeoutButBusyOnesAreNot() throws Exception {
        start(100);
        try (RawHttp used = larder.connect(); RawHttp silent = larder.connect()) {
            assertEquals(200, used.exchange("GET", "/v0/status", null).status());
            long start = System.nanoTime();
            assertTrue(used.closedByServer());
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(waited >= IDLE_TIMEOUT.toMillis() - 300 && waited < IDLE_TIMEOUT.toMillis() + 3000,
                    "closed after " + waited + " ms");
            assertTrue(silent.closedByServer(), "a connection that never sent a byte is idle too");
        }
        // A request that takes longer than the idle timeout is not idle: its connection stays, the answer arrives.
        try (RawHttp busy = larder.connect()) {
            busy.send(RawHttp.request("PUT", "/v0/entity?id=block-slow", "v"));
            gated.awaitBlocked(1);
            Thread.sleep(IDLE_TIMEOUT.toMillis() * 2);
            gated.open();
            assertEquals(201, busy.read().status());
        }
    }

    @Test
    void connectionsBeyondMaxConnectionsAreRefusedWhileExistingOnesKeepWorking() throws Exception {
        int max = 4;
        start(max);
        List<RawHttp> admitted = new ArrayList<>();
        try {
            for (int i = 0; i < max; i++) {
                RawHttp http = larder.connect();
                admitted.add(http);
                assertEquals(200, http.exchange("GET", "/v0/status", null).status());
            }
            for (int i = 0; i < 3; i++) {
                try (RawHttp extra = larder.connect()) {
                    RawHttp.Response refused = extra.read();
                    assertEquals(503, refused.status());
                    assertEquals("close", refused.header("connection"));
                    assertEquals("1", refused.header("retry-after"));
                    assertTrue(refused.text().contains("--max-connections 4"), refused.text());
                    assertTrue(extra.closedByServer());
                }
            }
            for (RawHttp http : admitted) {
                assertEquals(201, http.exchange("PUT", "/v0/entity?id=kept", "v").status(), "existing connection");
            }
            admitted.remove(0).close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (larder.server.openConnections() >= max && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            try (RawHttp replacement = larder.connect()) {
                assertEquals(200, replacement.exchange("GET", "/v0/status", null).status(), "a freed slot is reused");
            }
        } finally {
            for (RawHttp http : admitted) {
                http.close();
            }
        }
    }

    @Test
    void aClientThatDoesNotReadIsHeldBackNotBufferedAndLaterServedCompletely() throws Exception {
        start(100, Duration.ofSeconds(30));
        int valueSize = 1 << 20;
        byte[] value = new byte[valueSize];
        new Random(7).nextBytes(value);
        try (RawHttp put = larder.connect()) {
            assertEquals(201, put.exchange("PUT", "/v0/entity?id=large", new String(value, ISO_8859_1)).status());
        }
        int pipelined = 100;   // 100 MiB of responses if the server produced them all
        int before = responses.get();
        // A fixed 128 KiB receive buffer: what the server may produce is its own socket buffer (at most
        // net.ipv4.tcp_wmem's 4 MiB by default) + this + the 64 KiB high-water mark, a handful of 1 MiB answers.
        try (RawHttp http = new RawHttp(larder.address(), 128 * 1024)) {
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < pipelined; i++) {
                requests.append(RawHttp.request("GET", "/v0/entity?id=large", null));
            }
            http.send(requests.toString());
            Thread.sleep(1500);
            int produced = responses.get() - before;
            Thread.sleep(1500);
            int producedLater = responses.get() - before;
            System.out.printf("non-reading client: %d of %d responses of 1 MiB produced after 1.5 s, %d after 3 s%n",
                    produced, pipelined, producedLater);
            assertTrue(producedLater <= 12, "server kept producing for a client that does not read: "
                    + producedLater + " responses of 1 MiB");
            assertTrue(producedLater - produced <= 1, "production did not stop: " + produced + " then "
                    + producedLater);
            try (RawHttp other = larder.connect()) {
                assertEquals(200, other.exchange("GET", "/v0/status", null).status(), "others are still served");
            }
            // Once the client reads, everything arrives, in order, intact: the pause is not a deadlock, and the
            // request the server stopped reading half-way is not cut off by the read timeout meanwhile.
            for (int i = 0; i < pipelined; i++) {
                RawHttp.Response r = http.read();
                assertEquals(200, r.status(), "response " + i);
                assertArrayEquals(value, r.body(), "response " + i);
            }
        }
    }

    @Test
    void anUploadTheServerStoppedReadingIsNotCutOffByTheReadTimeout() throws Exception {
        // Every storage call on a worker, so a gated GET holds a worker and the event loop goes on reading.
        start(100, Duration.ofSeconds(30), o -> o.inlineBatch(0));
        byte[] value = new byte[1 << 20];
        new Random(3).nextBytes(value);
        String body = new String(value, ISO_8859_1);
        try (RawHttp put = larder.connect()) {
            assertEquals(201, put.exchange("PUT", "/v0/entity?id=large", body).status());
        }
        // Downloads held behind a gated GET, then an upload whose first half the server reads while it is still
        // reading: its read-timeout clock starts. Then the downloads go out to a client that reads nothing, the
        // server stops reading at the high-water mark, and the second half of the upload waits on the wire for
        // longer than the read timeout, through no fault of the client's sending.
        try (RawHttp http = new RawHttp(larder.address(), 128 * 1024)) {
            http.send(RawHttp.request("GET", "/v0/entity?id=block-first", null)
                    + RawHttp.request("GET", "/v0/entity?id=large", null).repeat(10));
            gated.awaitBlocked(1);
            Thread.sleep(200);   // the downloads are read; the upload comes in reads of its own
            String upload = RawHttp.request("PUT", "/v0/entity?id=uploaded", body);
            int half = upload.length() / 2;
            http.send(upload.substring(0, half));
            Thread.sleep(200);
            int before = responses.get();
            gated.open();
            int produced = awaitSettled(100, 3);
            assertTrue(produced - before < 11, "the server stopped at the high-water mark: " + (produced - before)
                    + " of 11 answers out");
            Thread writer = new Thread(() -> {
                try {
                    http.send(upload.substring(half));
                } catch (IOException e) {
                    // reported by the reads below
                }
            }, "uploader");
            writer.start();
            Thread.sleep(READ_TIMEOUT.toMillis() * 5 / 2);
            assertEquals(404, http.read().status(), "the gated GET");
            for (int i = 0; i < 10; i++) {
                RawHttp.Response r = http.read();
                assertEquals(200, r.status(), "download " + i);
                assertArrayEquals(value, r.body(), "download " + i);
            }
            assertEquals(201, http.read().status(), "the upload");
            writer.join(10_000);
        }
        try (RawHttp http = larder.connect()) {
            assertArrayEquals(value, http.exchange("GET", "/v0/entity?id=uploaded", null).body());
        }
    }

    /**
     * Waits until the server has completed no response for {@code ticks} checks {@code tickMillis} apart in a row;
     * returns how many it completed.
     */
    private int awaitSettled(long tickMillis, int ticks) throws InterruptedException {
        int produced = -1;
        for (int settled = 0; settled < ticks; ) {
            Thread.sleep(tickMillis);
            int now = responses.get();
            settled = now == produced ? settled + 1 : 0;
            produced = now;
        }
        return produced;
    }

    @Test
    void answersMadeOnTheEventLoopAlsoStopForAClientThatDoesNotRead() throws Exception {
        start(100, Duration.ofSeconds(30));
        // Unknown paths are answered 400 on the event loop, echoing the 4 KB path: no worker queue is involved, only
        // the high-water mark can hold them back.
        String request = RawHttp.request("GET", "/" + "p".repeat(4000), null);
        int pipelined = 20_000;   // 80 MiB of answers
        try (RawHttp http = new RawHttp(larder.address(), 128 * 1024)) {
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < pipelined; i++) {
                        http.send(request);
                    }
                } catch (IOException e) {
                    // closed at the end of the test
                }
            }, "pipeliner");
            writer.setDaemon(true);
            writer.start();
            int produced = awaitSettled(1000, 2);   // until nothing new for two seconds in a row
            System.out.printf("non-reading client, answers made on the event loop: %d of %d produced (4 KiB each)%n",
                    produced, pipelined);
            assertTrue(produced < 5_000, "server kept producing for a client that does not read: " + produced);
        }
    }

    @Test
    void aBurstOfAThousandPipelinedRequestsIsAnsweredInOrderAndTheConnectionStaysUsable() throws Exception {
        start(100, Duration.ofSeconds(30));
        try (RawHttp put = larder.connect()) {
            for (int i = 0; i < 1000; i++) {
                assertEquals(201, put.exchange("PUT", "/v0/entity?id=p" + i, "v" + i).status());
            }
        }
        try (RawHttp http = larder.connect()) {
            // 1000 storage GETs in one burst: far more than one read's worth waits in the dispatcher at a time.
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < 1000; i++) {
                requests.append(RawHttp.request("GET", "/v0/entity?id=p" + i, null));
            }
            http.send(requests.toString());
            for (int i = 0; i < 1000; i++) {
                RawHttp.Response r = http.read();
                assertEquals(200, r.status(), "answer " + i);
                assertEquals("v" + i, r.text(), "answers in request order");
                assertNull(r.header("connection"), "answer " + i);
            }
            assertEquals(200, http.exchange("GET", "/v0/status", null).status());
        }
    }

    @Test
    void aClientThatNeverReadsIsClosedAfterIdleTimeout() throws Exception {
        start(100);
        byte[] value = new byte[1 << 20];
        try (RawHttp put = larder.connect()) {
            assertEquals(201, put.exchange("PUT", "/v0/entity?id=large", new String(value, ISO_8859_1)).status());
        }
        try (RawHttp http = larder.connect(); RawHttp other = larder.connect()) {
            http.send(RawHttp.request("GET", "/v0/entity?id=large", null).repeat(100));
            assertEquals(200, other.exchange("GET", "/v0/status", null).status());
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (larder.server.openConnections() != 2 && System.nanoTime() < settle) {
                Thread.sleep(10);   // the PUT connection's close and these two connects are asynchronous
            }
            assertEquals(2, larder.server.openConnections());
            long start = System.nanoTime();
            long deadline = start + IDLE_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(5);
            while (larder.server.openConnections() > 1 && System.nanoTime() < deadline) {
                assertEquals(200, other.exchange("GET", "/v0/status", null).status(), "others are still served");
                Thread.sleep(100);
            }
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(1, larder.server.openConnections(), "the non-reading connection is still open");
            assertTrue(waited >= IDLE_TIMEOUT.toMillis() - 300, "closed after only " + waited + " ms");
        }
    }
}
