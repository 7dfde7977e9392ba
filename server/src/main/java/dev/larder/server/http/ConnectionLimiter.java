package dev.larder.server.http;

import dev.larder.server.answer.HttpResponses;
import dev.larder.server.config.ServerObserver;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts open connections; one past {@code --max-connections} is answered 503 and closed at once, so clients
 * already connected keep their service.
 */
@Sharable
public final class ConnectionLimiter extends ChannelInboundHandlerAdapter {

    private final int maxConnections;
    private final ServerObserver observer;
    private final AtomicInteger open = new AtomicInteger();

    public ConnectionLimiter(int maxConnections, ServerObserver observer) {
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
            // Wire bytes, written from the head of the pipeline: this handler is gone and the encoder is above.
            HttpResponses.tooManyConnections(maxConnections).writeAndFlush(ctx.pipeline().firstContext(), true);
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
    public int open() {
        return open.get();
    }
}
