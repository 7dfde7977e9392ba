package dev.larder.server.admin;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;

/**
 * One path of the admin listener. Called on the admin event loop for a {@code GET}; must not block, must answer
 * exactly once (now or later, from any thread, with {@code ctx.writeAndFlush}) and must not keep {@code request}
 * past the call: it is released when this returns.
 */
public interface AdminEndpoint {

    void serve(ChannelHandlerContext ctx, FullHttpRequest request);
}
