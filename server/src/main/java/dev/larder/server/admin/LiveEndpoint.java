package dev.larder.server.admin;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code GET /health/live}: 200 whenever the process can answer at all. Deliberately checks nothing else: a
 * liveness failure gets the process restarted, which would not fix a full disk or a draining server.
 */
public final class LiveEndpoint implements AdminEndpoint {

    @Override
    public void serve(ChannelHandlerContext ctx, FullHttpRequest request) {
        ctx.writeAndFlush(AdminResponses.text(HttpResponseStatus.OK, "live"));
    }
}
