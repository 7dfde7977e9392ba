package dev.larder.server.admin;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * The admin port's pipeline, inbound top to bottom:
 *
 * <pre>
 *   bytes ──▶ idle close ──▶ http codec ──▶ keep-alive ──▶ aggregator ──▶ admin handler ──▶ endpoint
 *             (6 min)                                     (8 KiB)         (path, GET)      (metrics, health,
 *                                                                                           profile)
 * </pre>
 */
final class AdminServerInitializer extends ChannelInitializer<Channel> {

    // Longer than the longest profile: a connection waiting for its flame graph is silent, not idle.
    private static final long IDLE_SECONDS = ProfileRequest.MAX_SECONDS + 60;

    private final AdminHandler handler;

    AdminServerInitializer(AdminHandler handler) {
        this.handler = handler;
    }

    @Override
    protected void initChannel(Channel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast("idle", new IdleStateHandler(0, 0, IDLE_SECONDS, TimeUnit.SECONDS) {
            @Override
            protected void channelIdle(io.netty.channel.ChannelHandlerContext ctx,
                                       io.netty.handler.timeout.IdleStateEvent evt) {
                ctx.close();
            }
        });
        pipeline.addLast("http", new HttpServerCodec());
        pipeline.addLast("keep-alive", new HttpServerKeepAliveHandler());
        pipeline.addLast("aggregator", new HttpObjectAggregator(8 * 1024));
        pipeline.addLast("admin", handler);
    }
}
