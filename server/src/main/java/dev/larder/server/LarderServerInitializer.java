package dev.larder.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;

/**
 * The data port's pipeline, inbound top to bottom:
 *
 * <pre>
 *   bytes ──▶ limiter ──▶ timeouts ──▶ http codec ──▶ request-end ──▶
 *             (503 past   (read and    (414, 431,    (a request is
 *           max-conns)    idle)         400)          whole: stop the read clock)
 *
 *         ──▶ keep-alive ──▶ aggregator ──▶ dispatcher ──▶ worker lane
 *             (Connection,   (413, 100-     (route, order,     (RocksDB)
 *              HTTP/1.0)      continue)      status inline)
 * </pre>
 */
final class LarderServerInitializer extends ChannelInitializer<SocketChannel> {

    private final ServerContext server;
    private final ConnectionLimiter limiter;
    private final HttpDecoderConfig decoderConfig;

    LarderServerInitializer(ServerContext server, ConnectionLimiter limiter) {
        this.server = server;
        this.limiter = limiter;
        this.decoderConfig = new HttpDecoderConfig()
                .setMaxInitialLineLength(server.options.maxRequestLine())
                .setMaxHeaderSize(server.options.maxHeaderSize())
                .setMaxChunkSize(64 * 1024);
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ServerOptions options = server.options;
        ConnectionState state = new ConnectionState();
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast("limiter", limiter);
        pipeline.addLast("timeouts", new ConnectionTimeouts(state, options.readTimeout().toNanos(),
                options.idleTimeout().toNanos()));
        pipeline.addLast("http", new HttpServerCodec(decoderConfig));
        pipeline.addLast("request-end", new ConnectionTimeouts.RequestEnd(state));
        pipeline.addLast("keep-alive", new HttpServerKeepAliveHandler());
        pipeline.addLast("aggregator", new HttpObjectAggregator(options.maxValueSize(), true));
        pipeline.addLast("dispatcher", new RequestDispatcher(server, state));
    }
}
