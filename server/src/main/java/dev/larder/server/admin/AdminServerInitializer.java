package dev.larder.server.admin;

import dev.larder.server.security.ListenerSecurity;
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
 *   bytes ──▶ idle close ──▶ [tls] ──▶ http codec ──▶ origin form ──▶ keep-alive ──▶ aggregator ──▶ [auth] ──▶ admin handler ──▶ endpoint
 *             (6 min)        (when                    (http://h/p                       (8 KiB)       (401 without (path, GET)  (metrics, health,
 *                            --tls-*)                  becomes /p)                                    the admin token;           profile)
 *                                                                                                     /health/* open)
 * </pre>
 */
final class AdminServerInitializer extends ChannelInitializer<Channel> {

    // Longer than the longest profile: a connection waiting for its flame graph is silent, not idle.
    private static final long IDLE_SECONDS = ProfileRequest.MAX_SECONDS + 60;

    private final AdminHandler handler;
    private final ListenerSecurity security;

    AdminServerInitializer(AdminHandler handler, ListenerSecurity security) {
        this.handler = handler;
        this.security = security;
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
        security.tlsHandler(channel).ifPresent(tls -> pipeline.addLast("tls", tls));
        pipeline.addLast("http", new HttpServerCodec());
        pipeline.addLast("origin-form", OriginFormTargets.INSTANCE);
        pipeline.addLast("keep-alive", new HttpServerKeepAliveHandler());
        pipeline.addLast("aggregator", new HttpObjectAggregator(8 * 1024));
        security.tokenCheck().ifPresent(auth -> pipeline.addLast("auth", auth));
        pipeline.addLast("admin", handler);
    }
}
