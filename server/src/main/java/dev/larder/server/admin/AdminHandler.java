package dev.larder.server.admin;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.Map;

/** Routes admin requests by path to their {@link AdminEndpoint}; every endpoint is {@code GET} only. */
@Sharable
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private final Map<String, AdminEndpoint> endpoints;

    AdminHandler(Map<String, AdminEndpoint> endpoints) {
        this.endpoints = Map.copyOf(endpoints);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            ctx.writeAndFlush(AdminResponses.text(HttpResponseStatus.BAD_REQUEST, "malformed request"));
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        AdminEndpoint endpoint = endpoints.get(path);
        if (endpoint == null) {
            ctx.writeAndFlush(AdminResponses.text(HttpResponseStatus.NOT_FOUND, "no such admin path " + path
                    + " (have: " + String.join(", ", new java.util.TreeSet<>(endpoints.keySet())) + ")"));
            return;
        }
        if (!HttpMethod.GET.equals(request.method())) {
            FullHttpResponse response = AdminResponses.text(HttpResponseStatus.METHOD_NOT_ALLOWED,
                    "method not allowed; use GET");
            response.headers().set(HttpHeaderNames.ALLOW, "GET");
            ctx.writeAndFlush(response);
            return;
        }
        endpoint.serve(ctx, request);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Resets and the like: the peer is gone, nothing to answer.
        ctx.close();
    }
}
