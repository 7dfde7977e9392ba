package dev.larder.server.http;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LeakDetection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The quick decoder against Netty's decoder and aggregator alone, as a differential test: the same bytes, cut into
 * reads at every place or at random, must come out as the same requests (method, target, version, header fields,
 * body, decode result), the same answers written by the aggregator (100 Continue, 413, 417) and the same open or
 * closed connection, whichever of the two decoded them. Also that the quick decoder takes the plain requests itself
 * (else the comparison would prove nothing) and gives the bytes back to Netty's decoder only while that one holds a
 * request. The same requests over real sockets are {@code BadInputTest}'s, {@code HttpContractTest}'s and
 * {@code FuzzTest}'s.
 */
@ExtendWith(LeakDetection.class)
class QuickRequestDecoderTest {

    private static final int MAX_LINE = 80;
    private static final int MAX_HEADERS = 300;
    private static final int MAX_BODY = 100;

    private static final List<String> REQUESTS = List.of(
            "GET /v0/entity?id=k1 HTTP/1.1\r\nHost: localhost:8080\r\n\r\n",
            "GET /v0/entity?id=k1 HTTP/1.1\r\n\r\n",
            "PUT /v0/entity?id=k2 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
            "PUT /v0/entity?id=k2 HTTP/1.1\r\ncontent-length:0\r\n\r\n",
            "PUT /v0/entity?id=k2 HTTP/1.1\r\nContent-Length: 007\r\n\r\nabcdefg",
            "PUT /v0/entity?id=k2 HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
            "PUT /v0/entity?id=k2 HTTP/1.1\r\nContent-Length: 3 \t\r\n\r\nabc",
            "PUT /v0/entity?id=k2 HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc",
            "PUT /v0/entity?id=k2 HTTP/1.1\r\nContent-Length: 101\r\n\r\n",
            "PUT /v0/entity?id=k2 HTTP/1.1\r\nContent-Length: 100\r\n\r\n" + "v".repeat(100),
            "PUT /v0/entity?id=k3 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            "PUT /v0/entity?id=k3 HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            "PUT /v0/entity?id=k4 HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
            "PUT /v0/entity?id=k4 HTTP/1.1\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\nok",
            "GET http://h:8080/v0/status HTTP/1.1\r\n\r\n",
            "OPTIONS * HTTP/1.1\r\n\r\n",
            "GET /v0/status HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
            "GET /v0/status HTTP/1.2\r\n\r\n",
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
            "get /v0/status HTTP/1.1\r\n\r\n",
            "DELETE /v0/entity?id=k1 HTTP/1.1\r\nX-Empty:\r\nX-Spaces:   a b   \r\nX-Tab:\tv\t\r\n\r\n",
            "GET /v0/status HTTP/1.1\r\nHost : h\r\n\r\n",
            "GET /v0/status HTTP/1.1\r\nX-Folded: a\r\n b\r\n\r\n",
            "GET /v0/status HTTP/1.1\nHost: h\n\n",
            "GET /v0/status HTTP/1.1\r\nHost: h\nX: y\r\n\r\n",
            "GET /v0/status HTTP/1.1\r\nX-Latin: caf\u00e9\r\n\r\n",
            "GET /v0/status HTTP/1.1\r\nX-Ctl: a\u0001b\r\n\r\n",
            "\r\n\r\nGET /v0/status HTTP/1.1\r\n\r\n",
            "GET  /v0/status HTTP/1.1\r\n\r\n",
            "GET /v0/status  HTTP/1.1\r\n\r\n",
            "GET /v0/status\r\n\r\n",
            "GET /v0/st\u00e4tus HTTP/1.1\r\n\r\n",
            "GET /v0/entity?id=" + "x".repeat(MAX_LINE - 30) + " HTTP/1.1\r\n\r\n",
            "GET /v0/entity?id=" + "x".repeat(MAX_LINE) + " HTTP/1.1\r\n\r\n",
            "GET /v0/status HTTP/1.1\r\nX-Big: " + "y".repeat(MAX_HEADERS - 15) + "\r\n\r\n",
            "GET /v0/status HTTP/1.1\r\nX-Big: " + "y".repeat(MAX_HEADERS) + "\r\n\r\n",
            "GET /v0/status HTTP/1.1\r\nSec-WebSocket-Key1: 1\r\nSec-WebSocket-Key2: 2\r\nUpgrade: WebSocket\r\n"
                    + "Connection: Upgrade\r\n\r\n12345678",
            ": /v0/status HTTP/1.1\r\n\r\n",
            "GET /v0/status HTTP/1.1\r\n: empty-name\r\n\r\n");

    /** What came out of one decoding: requests and answers in order, then whether the connection stayed open. */
    private static List<String> decode(boolean quick, List<byte[]> reads) {
        List<String> events = new ArrayList<>();
        HttpDecoderConfig config = new HttpDecoderConfig().setMaxInitialLineLength(MAX_LINE)
                .setMaxHeaderSize(MAX_HEADERS).setMaxChunkSize(64 * 1024);
        OriginFormRequestDecoder decoder = new OriginFormRequestDecoder(config);
        EmbeddedChannel channel = new EmbeddedChannel();
        QuickRequestDecoder quickDecoder = new QuickRequestDecoder(decoder, config.getHeadersFactory(), MAX_LINE,
                MAX_HEADERS, MAX_BODY);
        channel.pipeline().addLast(new HttpResponseEncoder());
        if (quick) {
            channel.pipeline().addLast("quick-decoder", quickDecoder);
        }
        channel.pipeline().addLast("http-decoder", decoder);
        channel.pipeline().addLast(new SingleChunkAggregator(MAX_BODY));
        channel.pipeline().addLast("aggregator", new HttpObjectAggregator(MAX_BODY, true));
        channel.pipeline().addLast(new Recorder(events));
        quickDecoder.deliverFrom(channel.pipeline().context("aggregator"));
        for (byte[] read : reads) {
            if (!channel.isOpen()) {
                break;
            }
            try {
                channel.writeInbound(Unpooled.wrappedBuffer(read));
            } catch (Exception e) {
                // EmbeddedChannel rethrows what went wrong in the read, such as the aggregator's second answer
                // written after it closed the connection for the first: the same in both decodings, or not.
                events.add("exception " + e.getClass().getSimpleName());
            }
            for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
                events.add("answer " + ((ByteBuf) out).toString(ISO_8859_1).lines().findFirst().orElse(""));
                ReferenceCountUtil.release(out);
            }
        }
        events.add(channel.isOpen() ? "open" : "closed");
        try {
            channel.finishAndReleaseAll();
        } catch (Exception e) {
            events.add("exception " + e.getClass().getSimpleName());
        }
        return events;
    }

    /** Records each whole request as text and releases it. */
    private static final class Recorder extends ChannelInboundHandlerAdapter {
        private final List<String> events;

        Recorder(List<String> events) {
            this.events = events;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof FullHttpRequest request) {
                    StringBuilder text = new StringBuilder("request ");
                    text.append(request.decoderResult().isSuccess() ? "ok " : "failed ")
                            .append(request.method()).append(' ').append(request.uri()).append(' ')
                            .append(request.protocolVersion());
                    for (Map.Entry<String, String> header : request.headers()) {
                        // Netty's decoder spells a few well-known names its own way; names are case-insensitive.
                        text.append(" | ").append(header.getKey().toLowerCase()).append(": ").append(header.getValue());
                    }
                    text.append(" | body ").append(request.content().toString(ISO_8859_1));
                    events.add(text.toString());
                } else {
                    events.add("other " + msg.getClass().getSimpleName());
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }
    }

    private static byte[] bytes(String wire) {
        return wire.getBytes(ISO_8859_1);
    }

    private static List<byte[]> cut(byte[] wire, int... at) {
        List<byte[]> reads = new ArrayList<>();
        int from = 0;
        for (int to : at) {
            reads.add(Arrays.copyOfRange(wire, from, to));
            from = to;
        }
        reads.add(Arrays.copyOfRange(wire, from, wire.length));
        return reads;
    }

    private static void assertSame(String what, List<byte[]> reads) {
        assertEquals(decode(false, reads), decode(true, reads), what);
    }

    @Test
    void eachRequestInOneReadComesOutAsNettyMakesIt() {
        for (String request : REQUESTS) {
            assertSame(request, List.of(bytes(request)));
        }
    }

    @Test
    void eachRequestCutAnywhereComesOutAsNettyMakesIt() {
        for (String request : REQUESTS) {
            byte[] wire = bytes(request);
            for (int at = 1; at < wire.length; at++) {
                assertSame(request + " cut at " + at, cut(wire, at));
            }
        }
    }

    @Test
    void pipelinedPairsComeOutAsNettyMakesThemWhereverCut() {
        for (String first : REQUESTS) {
            for (String second : REQUESTS) {
                byte[] wire = bytes(first + second + REQUESTS.get(0));
                assertSame(first + second, List.of(wire));
                int boundary = bytes(first).length;
                assertSame(first + second + " cut in the first", cut(wire, boundary / 2));
                assertSame(first + second + " cut in the second", cut(wire, boundary + 3));
            }
        }
    }

    @Test
    void mutatedRequestsComeOutAsNettyMakesThem() {
        byte[] alphabet = bytes(" \t\r\n:;,/?=01aZ-\u0000\u0080\u00ff");
        SplittableRandom random = new SplittableRandom(103);
        for (int round = 0; round < 20_000; round++) {
            byte[] wire = bytes(REQUESTS.get(random.nextInt(REQUESTS.size()))
                    + REQUESTS.get(random.nextInt(REQUESTS.size())));
            for (int edits = 1 + random.nextInt(3); edits > 0; edits--) {
                wire[random.nextInt(wire.length)] = alphabet[random.nextInt(alphabet.length)];
            }
            List<byte[]> reads = random.nextBoolean() ? List.of(wire) : cut(wire, 1 + random.nextInt(wire.length - 1));
            assertSame(new String(wire, ISO_8859_1), reads);
        }
    }

    @Test
    void plainRequestsAreDecodedQuicklyAndTheRestByNetty() {
        List<String> sent = List.of(REQUESTS.get(0), REQUESTS.get(2), REQUESTS.get(10), REQUESTS.get(0));
        HttpDecoderConfig config = new HttpDecoderConfig();
        OriginFormRequestDecoder decoder = new OriginFormRequestDecoder(config);
        QuickRequestDecoder quickDecoder = new QuickRequestDecoder(decoder, config.getHeadersFactory(), 8192, 16384,
                MAX_BODY);
        List<String> seenByNetty = new ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.pipeline().addLast("quick-decoder", quickDecoder);
        channel.pipeline().addLast("spy", new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                seenByNetty.add(((ByteBuf) msg).toString(ISO_8859_1));
                ctx.fireChannelRead(msg);
            }
        });
        channel.pipeline().addLast("http-decoder", decoder);
        channel.pipeline().addLast(new SingleChunkAggregator(MAX_BODY));
        channel.pipeline().addLast("aggregator", new HttpObjectAggregator(MAX_BODY, true));
        quickDecoder.deliverFrom(channel.pipeline().context("aggregator"));
        try {
            for (String request : sent) {
                channel.writeInbound(Unpooled.wrappedBuffer(bytes(request)));
            }
            // Only the chunked one went the slow way; the plain ones after it came back.
            assertEquals(List.of(REQUESTS.get(10)), seenByNetty);
            // A request cut in its head is held until the rest comes; one cut in its body goes to Netty's decoder
            // with its head, and the bytes come back once that request is whole.
            byte[] wire = bytes(REQUESTS.get(2));
            int headEnd = REQUESTS.get(2).indexOf("\r\n\r\n") + 4;
            channel.writeInbound(Unpooled.wrappedBuffer(wire, 0, 10));
            channel.writeInbound(Unpooled.wrappedBuffer(wire, 10, wire.length - 10));
            assertEquals(1, seenByNetty.size());
            channel.writeInbound(Unpooled.wrappedBuffer(wire, 0, headEnd + 1));
            channel.writeInbound(Unpooled.wrappedBuffer(wire, headEnd + 1, wire.length - headEnd - 1));
            channel.writeInbound(Unpooled.wrappedBuffer(bytes(REQUESTS.get(0))));
            assertEquals(List.of(REQUESTS.get(10), REQUESTS.get(2).substring(0, headEnd + 1),
                    REQUESTS.get(2).substring(headEnd + 1)), seenByNetty);
            int requests = 0;
            for (Object out = channel.readInbound(); out != null; out = channel.readInbound()) {
                assertTrue(out instanceof FullHttpRequest request && request.decoderResult().isSuccess());
                ReferenceCountUtil.release(out);
                requests++;
            }
            assertEquals(7, requests);
        } finally {
            channel.finishAndReleaseAll();
        }
    }
}
