package dev.larder.server;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts open connections; one past {@code --max-connections} is answered 503 and closed at once, so clients
 * already connected keep their service.
 */
@Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter {

    private final int maxConnections;
    private final ServerObserver observer;
    private final AtomicInteger open = new AtomicInteger();

    ConnectionLimiter(int maxConnections, ServerObserver observer) {
        this.maxConnections = maxConnections;
        this.observer = observer;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        observer.connectionOpened();
        if (open.incrementAndGet() > maxConnections) {
            ctx.pipeline().remove(this);
            ctx.channel().closeFuture().addListener(f -> {
                open.decrementAndGet();
                observer.connectionClosed();
            });
            ctx.channel().config().setAutoRead(false);
            FullHttpResponse refusal = HttpResponses.text(HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "too many connections (--max-connections " + maxConnections + ")");
            refusal.headers().setInt(HttpHeaderNames.RETRY_AFTER, 1);
            ctx.pipeline().writeAndFlush(HttpResponses.closing(refusal)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        open.decrementAndGet();
        observer.connectionClosed();
        super.channelInactive(ctx);
    }

    /** Connections open now. */
    int open() {
        return open.get();
    }
}
