package dev.larder.server.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code GET /metrics}: the registry in Prometheus text format, or OpenMetrics when the {@code Accept} header names
 * {@code application/openmetrics-text} (as Prometheus itself does). Written straight into the response buffer.
 *
 * <p>{@code ?name[]=larder_rocksdb_write_stall_seconds_total&name[]=...} answers those metrics only (as the Prometheus
 * Java client's own server does), each named as it is or as a series of it reads, with {@code _total}, {@code _count},
 * {@code _sum} or {@code _bucket} (a timer's maximum is a metric of its own, {@code ..._max}). A tool that reads one
 * figure during a load asks for it alone: the whole registry is about 100 KB and 4-6 ms of the admin loop's CPU
 * (docs/performance.md, "Sessions 74-75"), which on a server pinned to one core is taken from the data path.
 */
public final class MetricsEndpoint implements AdminEndpoint {

    /** The Prometheus client's content types (its writer classes are a runtime-only dependency). */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS_TEXT = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    static final String NAME_PARAMETER = "name[]";
    /**
     * What a series' name adds to its metric's: a counter's total, a summary's or histogram's count, sum and buckets,
     * an OpenMetrics creation time.
     */
    private static final List<String> SERIES_SUFFIXES = List.of("_total", "_count", "_sum", "_bucket", "_created");

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

    /**
     * The metric names to answer for the {@code name[]} parameters of {@code uri}, each also without the suffix of the
     * series it names (the registry filters on the metric's name: a counter's has no {@code _total}); null for all.
     */
    static Set<String> includedNames(String uri) {
        List<String> names = new QueryStringDecoder(uri).parameters().get(NAME_PARAMETER);
        if (names == null) {
            return null;
        }
        Set<String> included = new HashSet<>();
        for (String name : names) {
            included.add(name);
            for (String suffix : SERIES_SUFFIXES) {
                if (name.endsWith(suffix) && name.length() > suffix.length()) {
                    included.add(name.substring(0, name.length() - suffix.length()));
                }
            }
        }
        return included;
    }

    @Override
    public void serve(ChannelHandlerContext ctx, FullHttpRequest request) {
        String contentType = contentType(request.headers().get(HttpHeaderNames.ACCEPT));
        Set<String> names = includedNames(request.uri());
        ByteBuf body = ctx.alloc().buffer(names == null ? 64 * 1024 : 1024);
        try (ByteBufOutputStream out = new ByteBufOutputStream(body)) {
            if (names == null) {
                registry.scrape(out, contentType);
            } else {
                registry.scrape(out, contentType, names);
            }
        } catch (IOException | RuntimeException e) {
            body.release();
            ctx.writeAndFlush(AdminResponses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "scrape failed: " + e));
            return;
        }
        ctx.writeAndFlush(AdminResponses.body(HttpResponseStatus.OK, contentType, body));
    }
}
