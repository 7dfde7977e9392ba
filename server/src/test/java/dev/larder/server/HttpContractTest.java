package dev.larder.server;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.ServerObserver;
import dev.larder.storage.MemoryLookup;
import dev.larder.storage.Store;
import dev.larder.storage.StoreException;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Every row of the /v0 contract and every limit, over real sockets against a real RocksDB. */
@ExtendWith(LeakDetection.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpContractTest {

    private TestServer larder;

    @BeforeAll
    void start(@TempDir Path dir) {
        larder = new TestServer(dir, o -> o.maxValueSize(1024).maxRequestLine(512).maxHeaderSize(1024),
                FailingKeyStore::new, ServerObserver.NOOP);
    }

    @AfterAll
    void stop() {
        larder.close();
    }

    private RawHttp.Response call(String method, String target, String body) throws Exception {
        try (RawHttp http = larder.connect()) {
            return http.exchange(method, target, body);
        }
    }

    @Test
    void putGetDeleteRoundTrip() throws Exception {
        assertEquals(404, call("GET", "/v0/entity?id=rt", null).status());
        assertEquals(201, call("PUT", "/v0/entity?id=rt", "first").status());
        RawHttp.Response got = call("GET", "/v0/entity?id=rt", null);
        assertEquals(200, got.status());
        assertEquals("application/octet-stream", got.header("content-type"));
        assertEquals("first", got.text());
        assertEquals(201, call("PUT", "/v0/entity?id=rt", "second").status(), "upsert");
        assertEquals("second", call("GET", "/v0/entity?id=rt", null).text());
        assertEquals(202, call("DELETE", "/v0/entity?id=rt", null).status());
        assertEquals(404, call("GET", "/v0/entity?id=rt", null).status());
        assertEquals(202, call("DELETE", "/v0/entity?id=never-existed", null).status());
    }

    @Test
    void emptyBodyIsAValidValue() throws Exception {
        assertEquals(201, call("PUT", "/v0/entity?id=empty", "").status());
        RawHttp.Response got = call("GET", "/v0/entity?id=empty", null);
        assertEquals(200, got.status());
        assertEquals("0", got.header("content-length"));
    }

    @Test
    void missingOrEmptyIdIs400() throws Exception {
        for (String method : new String[] {"GET", "PUT", "DELETE"}) {
            String body = method.equals("PUT") ? "v" : null;
            assertEquals(400, call(method, "/v0/entity", body).status(), method);
            assertEquals(400, call(method, "/v0/entity?id=", body).status(), method);
            assertEquals(400, call(method, "/v0/entity?other=1", body).status(), method);
        }
    }

    @Test
    void otherMethodIs405WithAllow() throws Exception {
        RawHttp.Response post = call("POST", "/v0/entity?id=x", "v");
        assertEquals(405, post.status());
        assertEquals("GET, PUT, DELETE", post.header("allow"));
        RawHttp.Response rangePut = call("PUT", "/v0/entities?start=a", "v");
        assertEquals(405, rangePut.status());
        assertEquals("GET", rangePut.header("allow"));
    }

    @Test
    void statusIs200AndUnknownPathIs400() throws Exception {
        assertEquals(200, call("GET", "/v0/status", null).status());
        assertEquals(400, call("GET", "/v1/entity?id=x", null).status());
        assertEquals(400, call("GET", "/", null).status());
    }

    /** RFC 9112 3.2.2: a server must accept a target in absolute form; it is served as its path and query. */
    @Test
    void absoluteFormTargetsAreServedAsTheirPathAndQuery() throws Exception {
        assertEquals(201, call("PUT", "http://example.com/v0/entity?id=absolute", "by-proxy").status());
        assertEquals("by-proxy", call("GET", "HTTPS://Example.COM:8443/v0/entity?id=absolute", null).text());
        assertEquals(200, call("GET", "http://127.0.0.1/v0/status", null).status());
        RawHttp.Response root = call("GET", "http://example.com", null);
        assertEquals(400, root.status());
        assertEquals("unknown path /", root.text().trim());
        assertEquals(400, call("GET", "ftp://example.com/v0/status", null).status(), "not an http URI");
        assertEquals(202, call("DELETE", "http://example.com/v0/entity?id=absolute", null).status());
        assertEquals(404, call("GET", "/v0/entity?id=absolute", null).status());
    }

    @Test
    void keysAreRawPercentDecodedBytes() throws Exception {
        assertEquals(201, call("PUT", "/v0/entity?id=%00%FF%0Araw+key", "bin").status());
        assertEquals("bin", call("GET", "/v0/entity?id=%00%ff%0Araw%20key", null).text());
        RawHttp.Response range = call("GET", "/v0/entities?start=%00&end=%01", null);
        byte[] expected = concat(new byte[] {0, (byte) 0xff, '\n'}, "raw key\nbin".getBytes(UTF_8));
        assertArrayEquals(expected, range.body());
    }

    @Test
    void invalidPercentEncodingIs400AndServerKeepsServing() throws Exception {
        try (RawHttp http = larder.connect()) {
            assertEquals(400, http.exchange("GET", "/v0/entity?id=%zz", null).status());
            assertEquals(400, http.exchange("GET", "/v0/entity?id=abc%4", null).status());
            assertEquals(200, http.exchange("GET", "/v0/status", null).status());
        }
    }

    @Test
    void rangeStreamsAscendingHalfOpen() throws Exception {
        for (String k : new String[] {"r/b", "r/a", "r/d", "r/c"}) {
            assertEquals(201, call("PUT", "/v0/entity?id=" + k, "v" + k).status());
        }
        RawHttp.Response range = call("GET", "/v0/entities?start=r/a&end=r/c", null);
        assertEquals(200, range.status());
        assertEquals("chunked", range.header("transfer-encoding"));
        assertEquals("r/a\nvr/ar/b\nvr/b", range.text());
        assertEquals("r/c\nvr/cr/d\nvr/d", call("GET", "/v0/entities?start=r/c&end=r/e", null).text());
        assertEquals(400, call("GET", "/v0/entities", null).status());
        assertEquals(400, call("GET", "/v0/entities?start=", null).status());
        assertEquals("", call("GET", "/v0/entities?start=zzz1&end=zzz2", null).text());
    }

    @Test
    void rangeWithoutEndRunsToTheLastKey() throws Exception {
        assertEquals(201, call("PUT", "/v0/entity?id=%FE%FE", "last").status());
        String all = new String(call("GET", "/v0/entities?start=%FE", null).body(), ISO_8859_1);
        assertEquals("\u00fe\u00fe\nlast", all);
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (RawHttp http = larder.connect()) {
            http.send(RawHttp.request("PUT", "/v0/entity?id=pipe", "one")
                    + RawHttp.request("GET", "/v0/status", null)
                    + RawHttp.request("GET", "/v0/entity?id=pipe", null)
                    + RawHttp.request("GET", "/nope", null)
                    + RawHttp.request("DELETE", "/v0/entity?id=pipe", null)
                    + RawHttp.request("GET", "/v0/entity?id=pipe", null));
            assertEquals(201, http.read().status());
            assertEquals(200, http.read().status());
            RawHttp.Response got = http.read();
            assertEquals(200, got.status());
            assertEquals("one", got.text());
            assertEquals(400, http.read().status());
            assertEquals(202, http.read().status());
            assertEquals(404, http.read().status());
        }
    }

    @Test
    void http10AndConnectionCloseAreHonoured() throws Exception {
        try (RawHttp http = larder.connect()) {
            http.send("GET /v0/status HTTP/1.0\r\n\r\n");
            assertEquals(200, http.read().status());
            assertTrue(http.closedByServer());
        }
        try (RawHttp http = larder.connect()) {
            http.send("GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            RawHttp.Response r = http.read();
            assertEquals(200, r.status());
            assertEquals("close", r.header("connection"));
            assertTrue(http.closedByServer());
        }
        try (RawHttp http = larder.connect()) {
            http.send("GET /v0/status HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            assertEquals(200, http.read().status());
            http.send("GET /v0/status HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            assertEquals(200, http.read().status());
        }
    }

    @Test
    void expectContinueWorks() throws Exception {
        try (RawHttp http = larder.connect()) {
            http.send("PUT /v0/entity?id=expect HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                    + "Expect: 100-continue\r\n\r\n");
            assertEquals(100, http.read().status());
            http.send("hello");
            assertEquals(201, http.read().status());
        }
        assertEquals("hello", call("GET", "/v0/entity?id=expect", null).text());
    }

    @Test
    void bodyOverLimitIs413WithAndWithoutExpect() throws Exception {
        String big = "x".repeat(2000);
        try (RawHttp http = larder.connect()) {
            assertEquals(413, http.exchange("PUT", "/v0/entity?id=big", big).status());
        }
        try (RawHttp http = larder.connect()) {
            http.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n"
                    + "Expect: 100-continue\r\n\r\n");
            assertEquals(413, http.read().status());
        }
        assertEquals(404, call("GET", "/v0/entity?id=big", null).status());
        assertEquals(201, call("PUT", "/v0/entity?id=big", "x".repeat(1024)).status(), "exactly the limit fits");
    }

    @Test
    void tooLongRequestLineIs414() throws Exception {
        try (RawHttp http = larder.connect()) {
            RawHttp.Response r = http.exchange("GET", "/v0/entity?id=" + "k".repeat(2000), null);
            assertEquals(414, r.status());
            assertTrue(http.closedByServer());
        }
        assertEquals(200, call("GET", "/v0/status", null).status());
    }

    @Test
    void tooLargeHeadersAre431() throws Exception {
        try (RawHttp http = larder.connect()) {
            http.send("GET /v0/status HTTP/1.1\r\nHost: x\r\nX-Big: " + "h".repeat(3000) + "\r\n\r\n");
            assertEquals(431, http.read().status());
            assertTrue(http.closedByServer());
        }
        assertEquals(200, call("GET", "/v0/status", null).status());
    }

    @Test
    void malformedRequestIs400ThenClose() throws Exception {
        try (RawHttp http = larder.connect()) {
            http.send("GET /v0/status HTTP/1.1\r\nHost: x\r\nContent-Length: banana\r\n\r\n");
            RawHttp.Response r = http.read();
            assertEquals(400, r.status());
            assertTrue(http.closedByServer());
        }
        assertEquals(200, call("GET", "/v0/status", null).status());
    }

    @Test
    void storageFailureIs500WithOneLineReasonAndServerKeepsServing() throws Exception {
        RawHttp.Response r = call("PUT", "/v0/entity?id=" + FailingKeyStore.POISON, "v");
        assertEquals(500, r.status());
        assertTrue(r.text().startsWith("storage failure: put: "), r.text());
        assertEquals(1, r.text().strip().lines().count());
        assertEquals(201, call("PUT", "/v0/entity?id=fine", "v").status());
    }

    /** The same failures when every call is handed to a worker ({@code --inline-batch 0}), not run on the loop. */
    @Test
    void storageFailureOnAWorkerIs500WithOneLineReasonToo(@TempDir Path dir) throws Exception {
        try (TestServer handingOver = new TestServer(dir, o -> o.inlineBatch(0), FailingKeyStore::new,
                ServerObserver.NOOP);
             RawHttp http = handingOver.connect()) {
            for (String method : new String[] {"PUT", "GET", "DELETE"}) {
                RawHttp.Response r = http.exchange(method, "/v0/entity?id=" + FailingKeyStore.POISON,
                        method.equals("PUT") ? "v" : null);
                assertEquals(500, r.status(), method);
                assertTrue(r.text().startsWith("storage failure: " + method.toLowerCase(java.util.Locale.ROOT)
                        + ": "), r.text());
                assertEquals(1, r.text().strip().lines().count());
            }
            assertEquals(201, http.exchange("PUT", "/v0/entity?id=fine", "v").status());
        }
    }

    @Test
    void keepAliveServesManyRequestsOnOneConnection() throws Exception {
        try (RawHttp http = larder.connect()) {
            for (int i = 0; i < 50; i++) {
                assertEquals(201, http.exchange("PUT", "/v0/entity?id=ka" + i, "v" + i).status());
                assertEquals("v" + i, http.exchange("GET", "/v0/entity?id=ka" + i, null).text());
            }
        }
    }

    @Test
    void largeRangeStreamsCompletelyToASlowReader() throws Exception {
        byte[] value = new byte[1000];
        Arrays.fill(value, (byte) 'z');
        String v = new String(value, ISO_8859_1);
        try (RawHttp http = larder.connect()) {
            for (int i = 0; i < 3000; i++) {
                http.send(RawHttp.request("PUT", String.format("/v0/entity?id=big/%05d", i), v));
                assertEquals(201, http.read().status());
            }
        }
        try (RawHttp http = larder.connect()) {
            http.send(RawHttp.request("GET", "/v0/entities?start=big/&end=big0", null));
            Thread.sleep(300); // let the server hit the high-water mark and pause
            RawHttp.Response r = http.read();
            assertEquals(200, r.status());
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (int i = 0; i < 3000; i++) {
                expected.write(String.format("big/%05d\n", i).getBytes(UTF_8));
                expected.write(value);
            }
            assertArrayEquals(expected.toByteArray(), r.body());
            assertEquals(200, http.exchange("GET", "/v0/status", null).status(), "keep-alive after a stream");
        }
        try (RawHttp http = larder.connect()) {
            http.send(RawHttp.request("GET", "/v0/entities?start=big/", null));
            // walk away mid-stream: the server must release the cursor and keep serving
        }
        assertEquals(200, call("GET", "/v0/status", null).status());
        assertNotNull(call("GET", "/v0/entity?id=big/00001", null).body());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** A real store that fails every call on one key, as a broken disk would. */
    static final class FailingKeyStore extends ForwardingStore {
        static final String POISON = "poison";

        FailingKeyStore(Store delegate) {
            super(delegate);
        }

        private static void check(String op, byte[] key) {
            if (Arrays.equals(key, POISON.getBytes(UTF_8))) {
                throw new StoreException(op, "IOError: simulated\nsecond line", null, false);
            }
        }

        @Override
        public byte[] get(byte[] key) {
            check("get", key);
            return delegate.get(key);
        }

        @Override
        public void put(byte[] key, byte[] value) {
            check("put", key);
            delegate.put(key, value);
        }

        @Override
        public void delete(byte[] key) {
            check("delete", key);
            delegate.delete(key);
        }

        // The quick calls an event loop makes itself (--inline-batch, on by default) fail the same way, so the
        // loop's answer to a failing store is under test too, not only a worker's.
        @Override
        public MemoryLookup getFromMemory(byte[] key) {
            check("get", key);
            return delegate.getFromMemory(key);
        }

        @Override
        public boolean putWithoutWaiting(byte[] key, byte[] value) {
            check("put", key);
            return delegate.putWithoutWaiting(key, value);
        }

        @Override
        public boolean deleteWithoutWaiting(byte[] key) {
            check("delete", key);
            return delegate.deleteWithoutWaiting(key);
        }
    }
}
