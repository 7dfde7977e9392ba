package dev.larder.server;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and broken HTTP over real sockets. Each input gets a clear status (and a close when the byte stream can no
 * longer be trusted); after each, a bystander connection opened before all of them is still served, no connection
 * is left open, and the leak guard checks every buffer was released.
 */
@ExtendWith(LeakDetection.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {

    private static final int MAX_VALUE = 64 * 1024;
    private static final int MAX_REQUEST_LINE = 8192;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(3);

    private TestServer larder;
    private Bystander bystander;

    /** A well-behaved client on its own keep-alive connection, served every 100 ms throughout. */
    private static final class Bystander extends Thread {
        private final RawHttp http;
        private final AtomicInteger served = new AtomicInteger();
        private volatile String failure;
        private volatile boolean stop;

        Bystander(RawHttp http) {
            super("bystander");
            this.http = http;
        }

        @Override
        public void run() {
            try (http) {
                while (!stop) {
                    RawHttp.Response r = http.exchange("GET", "/v0/status", null);
                    if (r.status() != 200) {
                        failure = "status answered " + r.status();
                        return;
                    }
                    served.incrementAndGet();
                    Thread.sleep(100);
                }
            } catch (Exception e) {
                failure = e.toString();
            }
        }

        void assertServed() throws InterruptedException {
            int before = served.get();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (served.get() == before && failure == null && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(null, failure, "the bystander connection failed");
            assertTrue(served.get() > before, "the bystander is no longer served");
        }
    }

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        larder = new TestServer(dir, o -> o.maxValueSize(MAX_VALUE).maxRequestLine(MAX_REQUEST_LINE)
                .maxHeaderSize(4096).readTimeout(READ_TIMEOUT).idleTimeout(IDLE_TIMEOUT));
        bystander = new Bystander(larder.connect());
        bystander.start();
    }

    @AfterEach
    void othersAreStillServedAndNothingIsLeftOpen() throws Exception {
        bystander.assertServed();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (larder.server.openConnections() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(1, larder.server.openConnections(), "connections left open besides the bystander");
    }

    @AfterAll
    void stop() throws Exception {
        bystander.stop = true;
        bystander.join();
        larder.close();
    }

    /** Sends {@code raw} on a new connection; the answer must be {@code status}, then a close if {@code closes}. */
    private RawHttp.Response expect(int status, boolean closes, byte[] raw) throws Exception {
        try (RawHttp http = larder.connect()) {
            http.send(raw);
            RawHttp.Response r = http.read();
            String input = new String(raw, 0, Math.min(raw.length, 80), ISO_8859_1).replace("\r\n", "\\r\\n");
            assertEquals(status, r.status(), input + " -> " + r.text());
            assertTrue(r.text().strip().lines().count() <= 1 && !r.text().isBlank() || r.body().length == 0,
                    "one-line reason: " + r.text());
            if (closes) {
                assertTrue(http.closedByServer(), input + " should close the connection");
            } else {
                assertEquals(200, http.exchange("GET", "/v0/status", null).status(), input + " then keep-alive");
            }
            return r;
        }
    }

    private RawHttp.Response expect(int status, boolean closes, String raw) throws Exception {
        return expect(status, closes, raw.getBytes(ISO_8859_1));
    }

    private RawHttp.Response call(String method, String target, String body) throws Exception {
        try (RawHttp http = larder.connect()) {
            return http.exchange(method, target, body);
        }
    }

    @Test
    void malformedRequestLinesAre400AndClose() throws Exception {
        String[] lines = {
            "GET /v0/status HTTP/1.1\nHost: x\n\n",                 // bare LF
            "GET /v0/status HTTP/1.1 extra\r\nHost: x\r\n\r\n",     // a fourth token
            "GET /v0/status HTTP/1.x\r\nHost: x\r\n\r\n",           // bad version
            "GET /v0/status FTP/1.1\r\nHost: x\r\n\r\n",            // not HTTP
            "GET /v0/sta tus HTTP/1.1\r\nHost: x\r\n\r\n",          // space inside the target
            "\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003\r\n\r\n", // a TLS ClientHello
        };
        for (String line : lines) {
            RawHttp.Response r = expect(400, true, line);
            assertTrue(r.text().startsWith("malformed request: "), r.text());
        }
    }

    @Test
    void malformedHeadersAre400AndClose() throws Exception {
        String[] requests = {
            "GET /v0/status HTTP/1.1\r\nHost x\r\n\r\n",                       // no colon
            "GET /v0/status HTTP/1.1\r\nHost : x\r\n\r\n",                     // space before the colon
            "GET /v0/status HTTP/1.1\r\nHost: x\u0000y\r\n\r\n",               // NUL in a value
            "GET /v0/status HTTP/1.1\r\nH\u00e9st: x\r\n\r\n",                 // non-token name
            "PUT /v0/entity?id=h HTTP/1.1\r\nContent-Length: banana\r\n\r\n",
            "PUT /v0/entity?id=h HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            "PUT /v0/entity?id=h HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
            "PUT /v0/entity?id=h HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nhello",
            "PUT /v0/entity?id=h HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        };
        for (String request : requests) {
            expect(400, true, request);
        }
        assertEquals(404, call("GET", "/v0/entity?id=h", null).status(), "no malformed request stored anything");
    }

    @Test
    void invalidPercentEncodingIs400AndTheConnectionStaysUsable() throws Exception {
        for (String id : new String[] {"%zz", "abc%4", "%", "%G1", "%%41", "a%2"}) {
            RawHttp.Response r = expect(400, false, RawHttp.request("PUT", "/v0/entity?id=" + id, "v"));
            assertTrue(r.text().startsWith("bad id parameter: "), r.text());
        }
        expect(400, false, RawHttp.request("GET", "/v0/entities?start=a&end=%x1", null));
    }

    @Test
    void idsThatAreNotUtf8RoundTripAsRawBytes() throws Exception {
        // Raw (unencoded) high bytes in the request line and percent-encoded invalid UTF-8 name the same key.
        byte[][] keys = {
            {(byte) 0xff, (byte) 0xfe, (byte) 0x80},
            {(byte) 0xc3, '('},                              // truncated two-byte sequence
            {(byte) 0xed, (byte) 0xa0, (byte) 0x80},         // a UTF-16 surrogate
            {(byte) 0xc0, (byte) 0xaf},                      // overlong '/'
        };
        for (byte[] key : keys) {
            String percent = percent(key);
            String raw = new String(key, ISO_8859_1);
            assertEquals(201, call("PUT", "/v0/entity?id=u8/" + raw, "value-" + percent).status(), percent);
            RawHttp.Response got = call("GET", "/v0/entity?id=u8/" + percent, null);
            assertEquals(200, got.status(), percent);
            assertEquals("value-" + percent, got.text());
        }
        RawHttp.Response range = call("GET", "/v0/entities?start=u8/&end=u80", null);
        assertEquals(200, range.status());
        for (byte[] key : keys) {
            String record = "u8/" + new String(key, ISO_8859_1) + "\nvalue-" + percent(key);
            assertTrue(new String(range.body(), ISO_8859_1).contains(record), percent(key));
        }
    }

    @Test
    void veryLongIdsWorkUpToTheRequestLineLimitAndBeyondIt414() throws Exception {
        String prefix = "PUT /v0/entity?id=";
        String suffix = " HTTP/1.1";
        String id = "k".repeat(MAX_REQUEST_LINE - prefix.length() - suffix.length() - 16);
        assertEquals(201, call("PUT", "/v0/entity?id=" + id, "long").status());
        assertEquals("long", call("GET", "/v0/entity?id=" + id, null).text());
        assertEquals(202, call("DELETE", "/v0/entity?id=" + id, null).status());
        RawHttp.Response r = expect(414, true, RawHttp.request("GET", "/v0/entity?id=" + "k".repeat(MAX_REQUEST_LINE),
                null));
        assertEquals("request line too long", r.text().strip());
    }

    @Test
    void tooLargeHeaderBlockIs431() throws Exception {
        StringBuilder many = new StringBuilder("GET /v0/status HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 200; i++) {
            many.append("X-H").append(i).append(": ").append("v".repeat(20)).append("\r\n");
        }
        expect(431, true, many.append("\r\n").toString());
        expect(431, true, "GET /v0/status HTTP/1.1\r\nHost: x\r\nX-Big: " + "h".repeat(5000) + "\r\n\r\n");
    }

    @Test
    void bodyOverTheLimitIs413WithAndWithoutExpectContinue() throws Exception {
        String big = "x".repeat(MAX_VALUE + 1);
        try (RawHttp http = larder.connect()) {
            assertEquals(413, http.exchange("PUT", "/v0/entity?id=big", big).status());
        }
        try (RawHttp http = larder.connect()) {
            // The body was sent anyway: it is skipped, the connection stays usable, and staying quiet past the read
            // timeout afterwards brings no unsolicited 408 (the swallowed request still stopped the read clock).
            http.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nContent-Length: " + big.length() + "\r\n\r\n"
                    + big);
            assertEquals(413, http.read().status());
            http.socket().setSoTimeout((int) READ_TIMEOUT.toMillis() * 2);
            assertThrows(SocketTimeoutException.class, () -> http.socket().getInputStream().read(),
                    "nothing may arrive on a connection without a request");
            http.socket().setSoTimeout(10_000);
            assertEquals(200, http.exchange("GET", "/v0/status", null).status(), "keep-alive after a 413");
        }
        try (RawHttp http = larder.connect()) {
            // The client waits for 100 before sending the body; 413 instead means it never sends it. The aggregator
            // closes such a connection (closeOnExpectationFailed).
            http.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nContent-Length: " + big.length()
                    + "\r\nExpect: 100-continue\r\n\r\n");
            assertEquals(413, http.read().status());
            assertTrue(http.closedByServer());
        }
        try (RawHttp http = larder.connect()) {
            http.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
            for (int i = 0; i < 5; i++) {
                http.send(Integer.toHexString(MAX_VALUE / 4) + "\r\n" + "y".repeat(MAX_VALUE / 4) + "\r\n");
            }
            http.send("0\r\n\r\n");
            assertEquals(413, http.read().status(), "chunked body over the limit");
        }
        assertEquals(404, call("GET", "/v0/entity?id=big", null).status());
    }

    @Test
    void contentLengthShorterThanTheBodyStoresTheDeclaredBytesAndTheRestIsTheNextRequest() throws Exception {
        try (RawHttp http = larder.connect()) {
            http.send("PUT /v0/entity?id=short HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nhello\r\n\r\n");
            assertEquals(201, http.read().status());
            RawHttp.Response garbage = http.read();
            assertEquals(400, garbage.status(), "'lo' is not a request line: " + garbage.text());
            assertTrue(http.closedByServer());
        }
        assertEquals("hel", call("GET", "/v0/entity?id=short", null).text());
        // Left over without a line end, the rest is a request that never completes: the connection is closed once
        // it has been quiet for --idle-timeout (the read timeout started with the request that completed).
        try (RawHttp http = larder.connect()) {
            http.send("PUT /v0/entity?id=short2 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nhello");
            assertEquals(201, http.read().status());
            long start = System.nanoTime();
            assertTrue(http.closedByServer());
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(waited < IDLE_TIMEOUT.toMillis() + 3000, "closed after " + waited + " ms");
        }
    }

    @Test
    void contentLengthLongerThanTheBodyIs408AfterTheReadTimeout() throws Exception {
        try (RawHttp http = larder.connect()) {
            long start = System.nanoTime();
            http.send("PUT /v0/entity?id=long HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello");
            RawHttp.Response r = http.read();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(408, r.status());
            assertEquals("close", r.header("connection"));
            assertTrue(http.closedByServer());
            assertTrue(waited >= READ_TIMEOUT.toMillis() - 50 && waited < READ_TIMEOUT.toMillis() + 3000,
                    "408 after " + waited + " ms");
        }
        assertEquals(404, call("GET", "/v0/entity?id=long", null).status());
    }

    @Test
    void chunkedRequestBodiesWork() throws Exception {
        try (RawHttp http = larder.connect()) {
            http.send("PUT /v0/entity?id=chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n"
                    + "1;name=value\r\n,\r\n"              // a chunk extension
                    + "6\r\n world\r\n"
                    + "0\r\nX-Trailer: t\r\n\r\n"          // a trailer
                    + "PUT /v0/entity?id=chunked-empty HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n"
                    + "0\r\n\r\n"
                    + RawHttp.request("GET", "/v0/entity?id=chunked", null));
            assertEquals(201, http.read().status());
            assertEquals(201, http.read().status());
            assertEquals("hello, world", http.read().text());
        }
        RawHttp.Response empty = call("GET", "/v0/entity?id=chunked-empty", null);
        assertEquals(200, empty.status());
        assertEquals(0, empty.body().length);
        expect(400, true, "PUT /v0/entity?id=c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n");
    }

    @Test
    void transferCodingsOtherThanChunkedAreRefused() throws Exception {
        RawHttp.Response gzip = expect(400, true,
                "PUT /v0/entity?id=te HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nhello");
        assertTrue(gzip.text().contains("chunked"), gzip.text());
        expect(400, true, "PUT /v0/entity?id=te HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n");
        RawHttp.Response layered = expect(501, true, "PUT /v0/entity?id=te HTTP/1.1\r\nHost: x\r\n"
                + "Transfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
        assertTrue(layered.text().contains("gzip, chunked"), layered.text());
        assertEquals(404, call("GET", "/v0/entity?id=te", null).status(), "nothing stored still encoded");
    }

    @Test
    void http09RequestIs400AndClose() throws Exception {
        RawHttp.Response r = expect(400, true, "GET /v0/status\r\n");
        assertTrue(r.text().contains("HTTP/0.9"), r.text());
    }

    @Test
    void http2PriorKnowledgePrefaceIs505AndClose() throws Exception {
        ByteArrayOutputStream preface = new ByteArrayOutputStream();
        preface.writeBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(ISO_8859_1));
        preface.writeBytes(HexFormat.of().parseHex("000000040000000000"));   // an empty SETTINGS frame
        RawHttp.Response r = expect(505, true, preface.toByteArray());
        assertTrue(r.text().contains("HTTP/2.0") && r.text().contains("HTTP/1.1"), r.text());
        expect(505, true, "GET /v0/status HTTP/3.0\r\nHost: x\r\n\r\n");
        expect(200, false, "GET /v0/status HTTP/1.2\r\nHost: x\r\n\r\n");   // a later 1.x is served as 1.1
    }

    @Test
    void unknownMethodsAre405() throws Exception {
        expect(405, false, "FOO /v0/entity?id=m HTTP/1.1\r\nHost: x\r\n\r\n");
        expect(405, false, "get /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");   // methods are case-sensitive
    }

    @Test
    void emptyLinesBeforeARequestAreIgnored() throws Exception {
        expect(200, false, "\r\n\r\nGET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
    }

    private static String percent(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) {
            sb.append('%').append(String.format("%02X", b & 0xff));
        }
        return sb.toString();
    }
}
