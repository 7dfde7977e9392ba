package dev.larder.server.http;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LeakDetection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shortcut between the HTTP decoder and the aggregator, with both real handlers around it as in the data port's
 * pipeline: which requests it makes whole itself (a {@link DefaultFullHttpRequest}, the decoder's buffer handed on),
 * which it leaves to the aggregator, and that every request comes out whole and in order either way. The same
 * requests over real sockets are {@code BadInputTest}'s and {@code HttpContractTest}'s.
 */
@ExtendWith(LeakDetection.class)
class SingleChunkAggregatorTest {

    private static final int MAX_BODY = 100;

    private final EmbeddedChannel channel = new EmbeddedChannel(
            new HttpResponseEncoder(),
            new HttpRequestDecoder(new HttpDecoderConfig().setMaxChunkSize(64 * 1024)),
            new SingleChunkAggregator(MAX_BODY),
            new HttpObjectAggregator(MAX_BODY, true));

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    private void send(String wire) {
        channel.writeInbound(Unpooled.copiedBuffer(wire, US_ASCII));
    }

    /** Reads the next whole request, checks it and releases it. */
    private void next(Consumer<FullHttpRequest> check) {
        FullHttpRequest request = channel.readInbound();
        assertNotNull(request, "a whole request");
        try {
            check.accept(request);
        } finally {
            request.release();
        }
    }

    private static String body(FullHttpRequest request) {
        return request.content().toString(US_ASCII);
    }

    /** The status of what the aggregator answered on its own (100 Continue, 413), parsed as a client would. */
    private int answered() {
        EmbeddedChannel client = new EmbeddedChannel(new HttpResponseDecoder(), new HttpObjectAggregator(1 << 16));
        try {
            for (ByteBuf bytes = channel.readOutbound(); bytes != null; bytes = channel.readOutbound()) {
                client.writeInbound(bytes);
            }
            FullHttpResponse response = client.readInbound();
            assertNotNull(response, "an answer on the wire");
            int status = response.status().code();
            response.release();
            return status;
        } finally {
            client.finishAndReleaseAll();
        }
    }

    @Test
    void aRequestWithoutBodyIsMadeWholeHere() {
        send("GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n");
        next(request -> {
            assertSame(DefaultFullHttpRequest.class, request.getClass(), "not the aggregator's");
            assertEquals(HttpMethod.GET, request.method());
            assertEquals("/v0/entity?id=a", request.uri());
            assertEquals("x", request.headers().get("Host"));
            assertEquals(0, request.content().readableBytes());
            assertTrue(request.decoderResult().isSuccess());
        });
        assertNull(channel.readInbound());
    }

    @Test
    void aBodyReadInOnePieceIsHandedOnWithoutTheAggregator() {
        send("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
        next(request -> {
            assertSame(DefaultFullHttpRequest.class, request.getClass());
            assertEquals("hello", body(request));
            assertEquals("5", request.headers().get("Content-Length"));
        });
    }

    @Test
    void aBodyInSeveralPiecesIsTheAggregatorsAndComesOutWhole() {
        send("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: 10\r\n\r\nhel");
        assertNull(channel.readInbound(), "nothing before the body is whole");
        send("lo");
        send("world");
        next(request -> {
            assertFalse(request instanceof DefaultFullHttpRequest, "the aggregator's");
            assertEquals("helloworld", body(request));
        });
        // The next request on the connection takes the shortcut again.
        send("GET /v0/entity?id=b HTTP/1.1\r\n\r\n");
        next(request -> {
            assertSame(DefaultFullHttpRequest.class, request.getClass());
            assertEquals("/v0/entity?id=b", request.uri());
        });
    }

    @Test
    void pipelinedRequestsComeOutInOrderWhicheverWayEachTakes() {
        send("GET /1 HTTP/1.1\r\n\r\n"
                + "PUT /2 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
                + "PUT /3 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n1\r\nf\r\n0\r\n\r\n"
                + "DELETE /4 HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
        String[] uris = {"/1", "/2", "/3", "/4"};
        String[] bodies = {"", "abc", "def", ""};
        for (int i = 0; i < uris.length; i++) {
            String uri = uris[i];
            String body = bodies[i];
            next(request -> {
                assertEquals(uri, request.uri());
                assertEquals(body, body(request));
            });
        }
        assertNull(channel.readInbound());
    }

    @Test
    void expectContinueIsTheAggregatorsToAnswer() {
        send("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
        assertEquals(100, answered(), "the aggregator's 100 Continue");
        send("ok");
        next(request -> {
            assertEquals("ok", body(request));
        });
    }

    @Test
    void aDeclaredBodyOverTheLimitIsTheAggregatorsToRefuse() {
        send("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: " + (MAX_BODY + 1) + "\r\n\r\n");
        assertEquals(413, answered());
        assertNull(channel.readInbound(), "nothing reaches the dispatcher");
    }

    @Test
    void aBodyAtTheLimitTakesTheShortcut() {
        String value = "v".repeat(MAX_BODY);
        send("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: " + MAX_BODY + "\r\n\r\n" + value);
        next(request -> {
            assertSame(DefaultFullHttpRequest.class, request.getClass());
            assertEquals(value, body(request));
        });
    }

    @Test
    void aChunkedRequestWithAnEmptyBodyIsTheAggregators() {
        send("PUT /v0/entity?id=a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        next(request -> {
            assertFalse(request instanceof DefaultFullHttpRequest, "the aggregator's");
            assertEquals(0, request.content().readableBytes());
            assertFalse(request.headers().contains("Transfer-Encoding"), "the aggregator's rewrite");
            assertEquals("0", request.headers().get("Content-Length"));
        });
    }

    /** A client that declares a body and hangs up before sending it has not sent a request that may be stored. */
    @Test
    void aBodyCutShortByTheConnectionsEndIsAFailureNotAnEmptyValue() {
        send("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: 5\r\n\r\n");
        channel.finish();
        FullHttpRequest request = channel.readInbound();
        if (request != null) {
            try {
                assertTrue(request.decoderResult().isFailure(), "never a whole, successful PUT with an empty body");
            } finally {
                request.release();
            }
        }
    }

    @Test
    void aMalformedRequestPassesThroughWithItsFailure() {
        send("GET /x HTTP/1.1\r\nContent-Length: abc\r\n\r\n");
        next(request -> {
            assertTrue(request.decoderResult().isFailure());
        });
    }
}
