package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseParserTest {

    private static ByteBuf buf(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    /** Feeds {@code text} cut at every possible point into two reads; the answer must not depend on the cut. */
    private static void everySplit(String text, int status, boolean keepAlive) throws Exception {
        for (int cut = 0; cut <= text.length(); cut++) {
            ResponseParser p = new ResponseParser();
            ByteBuf a = buf(text.substring(0, cut));
            ByteBuf b = buf(text.substring(cut));
            try {
                boolean done = p.parse(a);
                if (!done) {
                    assertEquals(0, a.readableBytes(), "cut " + cut);
                    done = p.parse(b);
                }
                assertTrue(done, "cut " + cut);
                assertEquals(status, p.status(), "cut " + cut);
                assertEquals(keepAlive, p.keepAlive(), "cut " + cut);
            } finally {
                a.release();
                b.release();
            }
        }
    }

    @Test
    void contentLengthBodyIsSkippedWhereverTheReadsAreCut() throws Exception {
        everySplit("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: x\r\n\r\nhello", 200, true);
    }

    @Test
    void chunkedBodyWithExtensionsAndTrailers() throws Exception {
        everySplit("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1A\r\n"
                + "abcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n", 200, true);
    }

    @Test
    void connectionCloseAndHttp10() throws Exception {
        everySplit("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 503, false);
        everySplit("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, false);
        everySplit("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", 200, true);
    }

    @Test
    void noBodyStatuses() throws Exception {
        everySplit("HTTP/1.1 204 No Content\r\n\r\n", 204, true);
        everySplit("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", 404, true);
    }

    @Test
    void bodyUntilCloseEndsAtEndOfInput() throws Exception {
        ResponseParser p = new ResponseParser();
        ByteBuf in = buf("HTTP/1.1 200 OK\r\n\r\nstream of bytes");
        try {
            assertFalse(p.parse(in));
            assertTrue(p.endOfInput());
            assertEquals(200, p.status());
            assertFalse(p.keepAlive());
        } finally {
            in.release();
        }
    }

    @Test
    void twoResponsesInOneReadLeaveTheSecondInTheBuffer() throws Exception {
        ResponseParser p = new ResponseParser();
        ByteBuf in = buf("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
        try {
            assertTrue(p.parse(in));
            assertEquals(201, p.status());
            p.reset();
            assertTrue(in.isReadable());
            assertTrue(p.parse(in));
            assertEquals(202, p.status());
            assertFalse(in.isReadable());
        } finally {
            in.release();
        }
    }

    @Test
    void garbageIsRejected() {
        ResponseParser p = new ResponseParser();
        ByteBuf in = buf("SSH-2.0-OpenSSH_9.2\r\n");
        try {
            assertThrows(ResponseParser.MalformedResponseException.class, () -> p.parse(in));
        } finally {
            in.release();
        }
    }
}
