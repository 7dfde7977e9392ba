package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RequestEncoderTest {

    private final ByteBufAllocator alloc = UnpooledByteBufAllocator.DEFAULT;
    private final RequestEncoder encoder = new RequestEncoder(URI.create("http://127.0.0.1:8080/?x=1"),
            List.of("X-Test: yes"), 100_000, 7);

    private static String text(ByteBuf buf) {
        try {
            return buf.toString(StandardCharsets.US_ASCII);
        } finally {
            buf.release();
        }
    }

    @Test
    void requestsAreByteExact() {
        assertEquals("GET /v0/entity?id=k123 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Test: yes\r\n\r\n",
                text(encoder.get(alloc, 123)));
        assertEquals("DELETE /v0/entity?id=k9 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Test: yes\r\n\r\n",
                text(encoder.delete(alloc, 9)));
        assertEquals("GET /v0/entities?start=k12&end=k12%3A HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Test: yes\r\n\r\n",
                text(encoder.range(alloc, 12)));
        assertEquals("GET /?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Test: yes\r\n\r\n", text(encoder.url(alloc)));
        String put = text(encoder.put(alloc, 1_000_000_007L, 5));
        assertTrue(put.startsWith("PUT /v0/entity?id=k1000000007 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Test: yes\r\n"
                + "Content-Length: 5\r\n\r\n"), put);
        assertEquals(5, put.length() - put.indexOf("\r\n\r\n") - 4);
    }

    @Test
    void largeValuesAreAttachedNotCopied() {
        ByteBuf put = encoder.put(alloc, 1, 100_000);
        try {
            String head = put.toString(0, 120, StandardCharsets.US_ASCII);
            assertTrue(head.contains("Content-Length: 100000"), head);
            int headerEnd = put.toString(StandardCharsets.US_ASCII).indexOf("\r\n\r\n") + 4;
            assertEquals(100_000, put.readableBytes() - headerEnd);
        } finally {
            put.release();
        }
    }

    @Test
    void prefillWritesEachKeyOnceAcrossThreads() {
        AtomicLong cursor = new AtomicLong();
        RequestSource a = encoder.prefill(cursor, 3, ValueSize.fixed(1), 1);
        RequestSource b = encoder.prefill(cursor, 3, ValueSize.fixed(1), 2);
        assertTrue(text(a.next(alloc)).startsWith("PUT /v0/entity?id=k1 "));
        assertTrue(text(b.next(alloc)).startsWith("PUT /v0/entity?id=k2 "));
        assertTrue(text(a.next(alloc)).startsWith("PUT /v0/entity?id=k3 "));
        assertNull(b.next(alloc));
    }

    @Test
    void mixFollowsItsWeightsAndSequentialPutsContinueAfterTheCursor() {
        Workload w = new Workload(Workload.parseMix("get=3,put=1"), 100, KeyDistribution.UNIFORM, false,
                ValueSize.fixed(8));
        AtomicLong cursor = new AtomicLong(100);
        RequestSource s = encoder.workload(w, null, cursor, 5);
        int gets = 0;
        int puts = 0;
        for (int i = 0; i < 4000; i++) {
            String r = text(s.next(alloc));
            if (r.startsWith("GET /v0/entity?id=k")) {
                gets++;
                long id = Long.parseLong(r.substring("GET /v0/entity?id=k".length(), r.indexOf(' ', 5)));
                assertTrue(id >= 1 && id <= 100, r);
            } else {
                puts++;
                assertTrue(r.startsWith("PUT /v0/entity?id=k" + (100 + puts) + " "), r);
            }
        }
        assertTrue(gets > 2700 && gets < 3300, "gets " + gets);
        assertEquals(4000, gets + puts);
    }
}
