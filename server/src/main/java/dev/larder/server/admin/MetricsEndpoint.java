package dev.larder.server.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;

/**
 * {@code GET /metrics}: the registry in Prometheus text format, or OpenMetrics when the {@code Accept} header names
 * {@code application/openmetrics-text} (as Prometheus itself does). Written straight into the response buffer.
 */
public final class MetricsEndpoint implements AdminEndpoint {

    /** The Prometheus client's content types (its writer classes are a runtime-only dependency). */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS_TEXT = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    public MetricsEndpoint(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    /** The content type answered for an {@code Accept} header (which may be null). */
    static String contentType(String accept) {
        return accept != null && accept.contains("application/openmetrics-text")
                ? OPENMETRICS_TEXT
                : PROMETHEUS_TEXT;
    }

    @Override
    public void serve(ChannelHandlerContext ctx, FullHttpRequest request) {
        String contentType = contentType(request.headers().get(HttpHeaderNames.ACCEPT));
        ByteBuf body = ctx.alloc().buffer(64 * 1024);
        try (ByteBufOutputStream out = new ByteBufOutputStream(body)) {
            registry.scrape(out, contentType);
        } catch (IOException | RuntimeException e) {
            body.release();
            ctx.writeAndFlush(AdminResponses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "scrape failed: " + e));
            return;
        }
        ctx.writeAndFlush(AdminResponses.body(HttpResponseStatus.OK, contentType, body));
    }
}
