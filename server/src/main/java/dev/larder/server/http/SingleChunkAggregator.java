package dev.larder.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Makes the {@link FullHttpRequest} of a request whose body arrived as one piece (a GET, a DELETE, a PUT whose value
 * was read whole) by handing the decoder's buffer on, and passes everything else to the {@link HttpObjectAggregator}
 * behind it. That is nearly every request, and the aggregator's way costs a composite buffer, a header rewrite and
 * its checks per request: 2.3-3.2% of the server's CPU at 40k GET/s (docs/performance.md, "Session 29").
 *
 * <p>Only requests the aggregator would pass unchanged take the shortcut: decoded without error, no
 * {@code Expect} (its 100-continue and 417 answers stay the aggregator's), no {@code Transfer-Encoding}, and a
 * {@code Content-Length}, if any, within the aggregator's limit (its 413 stays the aggregator's). A body that comes
 * in several pieces is handed to the aggregator from its first piece on, after the request it belongs to. Unlike the
 * aggregator it adds no {@code Content-Length} to a request without one (nothing behind it reads that header).
 */
final class SingleChunkAggregator extends ChannelInboundHandlerAdapter {

    private final long maxContentLength;
    /** A request that may take the shortcut, waiting for its body's first piece. */
    private HttpRequest held;

    SingleChunkAggregator(long maxContentLength) {
        this.maxContentLength = maxContentLength;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request && !(msg instanceof FullHttpRequest)) {
            if (eligible(request)) {
                held = request;
            } else {
                ctx.fireChannelRead(msg);
            }
            return;
        }
        if (msg instanceof HttpContent content && held != null) {
            HttpRequest request = held;
            held = null;
            if (msg instanceof LastHttpContent last && last.decoderResult().isSuccess()) {
                FullHttpRequest whole = new DefaultFullHttpRequest(request.protocolVersion(), request.method(),
                        request.uri(), last.content(), request.headers(), last.trailingHeaders());
                ctx.fireChannelRead(whole);
                return;
            }
            // The aggregator takes the request from here: this piece now, the rest as they come (below).
            ctx.fireChannelRead(request);
            ctx.fireChannelRead(content);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * The aggregator asks for more input while it holds part of a request and reading is paused (the dispatcher
     * pauses it with answers pending); a request held here needs the same, or its body would wait for the pause.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (held != null && !ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
        ctx.fireChannelReadComplete();
    }

    private boolean eligible(HttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
            return false;
        }
        HttpHeaders headers = request.headers();
        if (headers.contains(HttpHeaderNames.EXPECT) || headers.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            return false;
        }
        try {
            long declared = HttpUtil.getContentLength(request, 0L);
            return declared >= 0 && declared <= maxContentLength;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
