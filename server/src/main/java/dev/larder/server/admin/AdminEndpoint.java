package dev.larder.server.admin;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;

/**
 * One path of the admin listener. Called on the admin event loop for a {@code GET}; must not block, must answer
 * exactly once with {@code ctx.writeAndFlush} and must not keep {@code request} past the call: it is released when
 * this returns.
 *
 * <p>An answer given later is written on the admin event loop too ({@code ctx.executor().execute}). Netty's write and
 * read paths are shared with the data port, and a call from another thread takes their hand-over branch, which no
 * data-port request takes: C2 then throws away the data port's compiled write path and recompiles it under load.
 */
public interface AdminEndpoint {

    void serve(ChannelHandlerContext ctx, FullHttpRequest request);
}
