package dev.larder.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * Decodes the requests this port nearly always sees straight into a {@link FullHttpRequest}, in one pass over their
 * bytes: a request that is whole in the bytes at hand, with a request line of single spaces, an origin-form target,
 * HTTP/1.0 or 1.1, header fields of plain characters, and no body or a {@code Content-Length} one within the value
 * limit. Anything else goes to Netty's decoder and aggregator behind it, from the first byte of the first request not
 * taken here until that decoder has finished a request and holds no bytes: their 100-continue, chunked bodies,
 * 400/413/414/431 answers and leniencies stay exactly as they were, since only what they would pass unchanged is
 * taken here. A head cut between reads is held here until it is whole (it cannot be judged before), a body cut
 * between reads goes to Netty's decoder with its head.
 *
 * <p>Why: Netty's way copies each line into a scratch buffer, splits it, makes a request, an end-of-content marker
 * and a whole request of them, and passes each through four handlers: 10-11% of a GET's CPU at 25k/s in session
 * 102's profiles. This way a request costs 2-4% less at a fixed rate, and GET's saturated rate rose by a fifth
 * (docs/performance.md, "Session 103").
 *
 * <p>One instance per connection; everything runs on its event loop.
 */
final class QuickRequestDecoder extends ChannelInboundHandlerAdapter {

    /** Bytes of a request's head looked at first; a longer head is copied again whole, up to the limits. */
    private static final int FIRST_LOOK = 1024;
    private static final boolean[] TCHAR = new boolean[128];
    /** What follows the target; the x is the version's last digit, 0 or 1. */
    private static final byte[] REQUEST_LINE_END = " HTTP/1.x\r\n".getBytes(StandardCharsets.US_ASCII);

    static {
        for (char c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[Character.toUpperCase(c)] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
    }

    private final OriginFormRequestDecoder fallback;
    private final HttpHeadersFactory headersFactory;
    private final int maxRequestLine;
    private final int maxHeaderSize;
    private final long maxContentLength;
    private ChannelHandlerContext requests;
    private byte[] head = new byte[FIRST_LOOK];
    /** Bytes go to {@link #fallback} until it has finished a request and holds none. */
    private boolean delegating;
    /** The start of a request whose head has not all arrived; null when none. */
    private ByteBuf held;
    /** Whether the last {@link #decode} stopped at a head not all there. */
    private boolean headIncomplete;
    private boolean firedThisRead;

    /**
     * @param fallback the Netty decoder right behind this handler, which takes what this one does not
     * @param maxRequestLine the fallback's limit for the request line; a request near it is left to the fallback
     * @param maxHeaderSize the fallback's limit for the header block; likewise
     * @param maxContentLength the aggregator's limit for a body; likewise
     */
    QuickRequestDecoder(OriginFormRequestDecoder fallback, HttpHeadersFactory headersFactory, int maxRequestLine,
                        int maxHeaderSize, long maxContentLength) {
        this.fallback = fallback;
        this.headersFactory = headersFactory;
        this.maxRequestLine = maxRequestLine;
        this.maxHeaderSize = maxHeaderSize;
        this.maxContentLength = maxContentLength;
    }

    /**
     * Where the requests decoded here go on: the context of the last handler they would otherwise have passed
     * through unchanged (the aggregator's, or the decoder's when a token check must see them).
     */
    void deliverFrom(ChannelHandlerContext requests) {
        this.requests = requests;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (delegating || !(msg instanceof ByteBuf received)) {
            delegate(ctx, msg);
            return;
        }
        ByteBuf in = withHeld(ctx, received);
        try {
            while (in.isReadable()) {
                FullHttpRequest request = decode(in);
                if (request != null) {
                    firedThisRead = true;
                    requests.fireChannelRead(request);
                } else if (headIncomplete) {
                    held = ctx.alloc().buffer(in.readableBytes()).writeBytes(in);
                } else {
                    delegate(ctx, in.retain());
                    return;
                }
            }
        } finally {
            in.release();
        }
    }

    /**
     * As Netty's decoder does: reading paused by the handlers behind (the dispatcher with answers pending), a read
     * that brought only part of a head and no request asks for the next, or the request would wait for the pause.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (held != null && !firedThisRead && !ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
        firedThisRead = false;
        ctx.fireChannelReadComplete();
    }

    /** A head cut short by the peer's close is Netty's decoder's to answer, as it was before this decoder. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        giveHeldBack(ctx);
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof ChannelInputShutdownEvent) {
            giveHeldBack(ctx);
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (held != null) {
            held.release();
            held = null;
        }
    }

    private void giveHeldBack(ChannelHandlerContext ctx) {
        if (held != null) {
            ByteBuf rest = held;
            held = null;
            delegate(ctx, rest);
        }
    }

    /** {@code received}, after the part of a head held from the reads before it if any. */
    private ByteBuf withHeld(ChannelHandlerContext ctx, ByteBuf received) {
        if (held == null) {
            return received;
        }
        ByteBuf whole = ctx.alloc().buffer(held.readableBytes() + received.readableBytes());
        whole.writeBytes(held).writeBytes(received);
        held.release();
        received.release();
        held = null;
        return whole;
    }

    private void delegate(ChannelHandlerContext ctx, Object msg) {
        delegating = true;
        ctx.fireChannelRead(msg);
        delegating = !fallback.idle();
    }

    /**
     * The request at {@code in}'s reader index, which it then skips; or null, reader index unchanged, when it is not
     * one this decoder takes, or its head is not all there and nothing in it so far rules it out
     * ({@link #headIncomplete}).
     */
    private FullHttpRequest decode(ByteBuf in) {
        int start = in.readerIndex();
        int readable = in.readableBytes();
        int limit = maxRequestLine + maxHeaderSize;
        int looked = Math.min(readable, Math.min(FIRST_LOOK, limit));
        in.getBytes(start, head, 0, looked);
        FullHttpRequest request = parse(in, start, looked);
        if (headIncomplete && looked < Math.min(readable, limit)) {
            looked = Math.min(readable, limit);
            if (head.length < looked) {
                head = new byte[looked];
            }
            in.getBytes(start, head, 0, looked);
            request = parse(in, start, looked);
        }
        return request;
    }

    /**
     * Parses the head in {@code head[0, end)} (the bytes of {@code in} from {@code start}) and makes the request, or
     * returns null: not one to take here, or ({@link #headIncomplete}) not all there yet. Each line that is whole is
     * checked as it comes, so that a head Netty's decoder would refuse at once is not held here waiting for more.
     */
    private FullHttpRequest parse(ByteBuf in, int start, int end) {
        headIncomplete = false;
        byte[] b = head;
        // The request line: method SP origin-form SP HTTP/1.x CRLF, nothing more and nothing less.
        int methodEnd = 0;
        while (methodEnd < end && isTchar(b[methodEnd])) {
            methodEnd++;
        }
        int targetStart = methodEnd + 1;
        if (methodEnd == 0) {
            // Control characters before the request line too: Netty's decoder skips or refuses them.
            return null;
        }
        if (targetStart >= end) {
            return incomplete(end, maxRequestLine);
        }
        if (b[methodEnd] != ' ' || b[targetStart] != '/') {
            return null;
        }
        int targetEnd = targetStart;
        while (targetEnd < end && b[targetEnd] > ' ' && b[targetEnd] < 0x7f) {
            targetEnd++;
        }
        int lineEnd = targetEnd + REQUEST_LINE_END.length;
        // Netty's count leaves out the LF: a line within this one is within its limit.
        if (lineEnd > maxRequestLine) {
            return null;
        }
        for (int i = targetEnd; i < lineEnd; i++) {
            if (i == end) {
                return incomplete(end, maxRequestLine);
            }
            if (!inRequestLineEnd(b[i], i - targetEnd)) {
                return null;
            }
        }
        HttpVersion version = b[lineEnd - 3] == '1' ? HttpVersion.HTTP_1_1 : HttpVersion.HTTP_1_0;
        HttpHeaders headers = headersFactory.newHeaders();
        long contentLength = -1;
        int line = lineEnd;
        while (true) {
            // Likewise for the header block, whose count leaves out every LF.
            if (line + 2 - lineEnd > maxHeaderSize) {
                return null;
            }
            if (line + 2 > end) {
                return incomplete(end - lineEnd, maxHeaderSize);
            }
            if (b[line] == '\r') {
                if (b[line + 1] != '\n') {
                    return null;
                }
                break;
            }
            int nameEnd = line;
            while (nameEnd < end && isTchar(b[nameEnd])) {
                nameEnd++;
            }
            if (nameEnd == end) {
                return incomplete(end - lineEnd, maxHeaderSize);
            }
            if (nameEnd == line || b[nameEnd] != ':') {
                // Folded lines, space before the colon and the rest: Netty's decoder's to accept or refuse.
                return null;
            }
            int valueStart = nameEnd + 1;
            while (valueStart < end && (b[valueStart] == ' ' || b[valueStart] == '\t')) {
                valueStart++;
            }
            int eol = valueStart;
            while (eol < end && (b[eol] >= ' ' && b[eol] < 0x7f || b[eol] == '\t')) {
                eol++;
            }
            if (eol + 1 >= end) {
                return eol == end || b[eol] == '\r' ? incomplete(end - lineEnd, maxHeaderSize) : null;
            }
            if (b[eol] != '\r' || b[eol + 1] != '\n') {
                return null;
            }
            int valueEnd = eol;
            while (valueEnd > valueStart && (b[valueEnd - 1] == ' ' || b[valueEnd - 1] == '\t')) {
                valueEnd--;
            }
            int nameLength = nameEnd - line;
            if (isNamed(b, line, nameLength, HttpHeaderNames.CONTENT_LENGTH)) {
                if (contentLength >= 0) {
                    return null;
                }
                contentLength = decimal(b, valueStart, valueEnd);
                if (contentLength < 0) {
                    return null;
                }
            } else if (isNamed(b, line, nameLength, HttpHeaderNames.TRANSFER_ENCODING)
                    || isNamed(b, line, nameLength, HttpHeaderNames.EXPECT)
                    || isNamed(b, line, nameLength, HttpHeaderNames.SEC_WEBSOCKET_KEY1)) {
                // Chunked bodies, 100-continue and 417, and the old WebSocket handshake's implied 8-byte body.
                return null;
            }
            headers.add(new AsciiString(b, line, nameLength, true),
                    new String(b, 0, valueStart, valueEnd - valueStart));
            line = eol + 2;
        }
        int headEnd = line + 2;
        long bodyLength = Math.max(contentLength, 0);
        if (bodyLength > maxContentLength || bodyLength > in.readableBytes() - headEnd) {
            // A body cut between reads goes to Netty's decoder with its head, and from there in pieces to the
            // aggregator, rather than be copied here read after read.
            return null;
        }
        HttpMethod method = method(b, methodEnd);
        String target = new String(b, 0, targetStart, targetEnd - targetStart);
        ByteBuf body = bodyLength == 0 ? Unpooled.EMPTY_BUFFER : in.retainedSlice(start + headEnd, (int) bodyLength);
        in.readerIndex(start + headEnd + (int) bodyLength);
        return new DefaultFullHttpRequest(version, method, target, body, headers, EmptyHttpHeaders.INSTANCE);
    }

    /**
     * Null, and {@link #headIncomplete} unless the part seen ({@code seen} bytes of a section Netty's decoder limits
     * to {@code limit}) is near that limit already: then it is that decoder's to refuse (414, 431).
     */
    private FullHttpRequest incomplete(int seen, int limit) {
        headIncomplete = seen + 2 < limit;
        return null;
    }

    /** Whether {@code c} may be the {@code i}th byte of " HTTP/1.0\r\n" or " HTTP/1.1\r\n". */
    private static boolean inRequestLineEnd(byte c, int i) {
        return i == REQUEST_LINE_END.length - 3 ? c == '0' || c == '1' : c == REQUEST_LINE_END[i];
    }

    private static HttpMethod method(byte[] b, int length) {
        if (length == 3 && b[0] == 'G' && b[1] == 'E' && b[2] == 'T') {
            return HttpMethod.GET;
        }
        if (length == 3 && b[0] == 'P' && b[1] == 'U' && b[2] == 'T') {
            return HttpMethod.PUT;
        }
        return HttpMethod.valueOf(new String(b, 0, 0, length));
    }

    private static boolean isTchar(byte c) {
        return c >= 0 && TCHAR[c];
    }

    private static boolean isNamed(byte[] b, int at, int length, AsciiString name) {
        if (length != name.length()) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (lower(b[at + i]) != lower(name.byteAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static int lower(byte c) {
        return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
    }

    /** The value of the digits in {@code b[from, to)}, or -1 when there are none, others, or more than 18. */
    private static long decimal(byte[] b, int from, int to) {
        if (from == to || to - from > 18) {
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            if (b[i] < '0' || b[i] > '9') {
                return -1;
            }
            value = value * 10 + (b[i] - '0');
        }
        return value;
    }
}
