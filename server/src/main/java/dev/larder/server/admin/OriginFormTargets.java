package dev.larder.server.admin;

import dev.larder.server.http.OriginForm;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;

/**
 * Rewrites a request target in absolute form ({@code GET http://host:8081/metrics}) to its {@link OriginForm} before
 * the token check and the endpoints match its path, as the data port's decoder does. Before, the admin port answered
 * such a request 404 "no such admin path". A handler of its own here, because the admin port's {@code
 * HttpServerCodec} keeps its request decoder private; a scrape a second does not notice the extra step.
 */
@ChannelHandler.Sharable
final class OriginFormTargets extends ChannelInboundHandlerAdapter {

    static final OriginFormTargets INSTANCE = new OriginFormTargets();

    private OriginFormTargets() {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            String target = request.uri();
            String origin = OriginForm.of(target);
            if (!origin.equals(target)) {
                request.setUri(origin);
            }
        }
        ctx.fireChannelRead(msg);
    }
}
