package dev.larder.server.http;

import dev.larder.server.answer.Answer;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.context.ServerContext;
import dev.larder.server.security.ListenerSecurity;
import dev.larder.server.security.TokenCheck;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseEncoder;
import java.util.Optional;

/**
 * The data port's pipeline, inbound top to bottom:
 *
 * <pre>
 *   bytes ──▶ limiter ──▶ [tls] ──▶ timeouts ──▶ quick decoder ──▶ http decoder ──▶ request-end ──▶ [auth] ──▶ single-chunk ──▶ aggregator ──▶ dispatcher ──▶ worker lane
 *             (503 past   (when     (read and    (plain whole     (the rest:       (a request is   (401 with- (a body in one   (413, 100-     (route,        (RocksDB)
 *             max-conns)  --tls-*)  idle)        requests, made   414, 431, 400)   whole: stop     out token, piece: made      continue,      order,
 *                                                whole here) ─┐                    the read        before the whole here)      bodies in      keep-alive,
 *                                                             │                    clock)          body)                       pieces)        status)
 *                                                             └──────────▶ [auth], else straight to the dispatcher ─────────────────────────▶
 *
 *   bytes ◀── [tls] ◀── answers ◀──────── http encoder ◀── auth's 401, aggregator's 100 / 413, the range stream's chunks
 *             (whole responses, encoded by {@link Answer}, enter below the encoder)
 * </pre>
 */
public final class LarderServerInitializer extends ChannelInitializer<SocketChannel> {

    private final ServerContext server;
    private final ConnectionLimiter limiter;
    private final HttpDecoderConfig decoderConfig;
    private final ListenerSecurity security;
    private final long readTimeoutNanos;
    private final long idleTimeoutNanos;
    private final long timeoutCheckNanos;

    public LarderServerInitializer(ServerContext server, ConnectionLimiter limiter, ListenerSecurity security) {
        this.server = server;
        this.limiter = limiter;
        this.security = security;
        this.decoderConfig = new HttpDecoderConfig()
                .setMaxInitialLineLength(server.options.maxRequestLine())
                .setMaxHeaderSize(server.options.maxHeaderSize())
                .setMaxChunkSize(64 * 1024);
        ServerOptions options = server.options;
        this.readTimeoutNanos = options.readTimeout().toNanos();
        this.idleTimeoutNanos = options.idleTimeout().toNanos();
        this.timeoutCheckNanos = ConnectionTimeouts.checkPeriodNanos(readTimeoutNanos, idleTimeoutNanos,
                options.timeoutCheckPeriod().toNanos());
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ServerOptions options = server.options;
        ConnectionState state = new ConnectionState();
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast("limiter", limiter);
        security.tlsHandler(channel).ifPresent(tls -> pipeline.addLast("tls", tls));
        pipeline.addLast("timeouts", new ConnectionTimeouts(state, readTimeoutNanos, idleTimeoutNanos,
                timeoutCheckNanos));
        pipeline.addLast("http-encoder", new HttpResponseEncoder());
        OriginFormRequestDecoder decoder = new OriginFormRequestDecoder(decoderConfig);
        QuickRequestDecoder quick = new QuickRequestDecoder(decoder, decoderConfig.getHeadersFactory(),
                options.maxRequestLine(), options.maxHeaderSize(), options.maxValueSize());
        pipeline.addLast("quick-decoder", quick);
        pipeline.addLast("http-decoder", decoder);
        pipeline.addLast("request-end", new ConnectionTimeouts.RequestEnd(state));
        Optional<TokenCheck> auth = security.tokenCheck();
        auth.ifPresent(check -> pipeline.addLast("auth", check));
        pipeline.addLast("single-chunk", new SingleChunkAggregator(options.maxValueSize()));
        pipeline.addLast("aggregator", new HttpObjectAggregator(options.maxValueSize(), true));
        pipeline.addLast("dispatcher", new RequestDispatcher(server, state));
        // Whole requests from the quick decoder skip the handlers that would pass them on unchanged, not the token
        // check (the dispatcher stops the read clock itself).
        quick.deliverFrom(pipeline.context(auth.isPresent() ? "http-decoder" : "aggregator"));
    }

    /**
     * Asks {@code channel}'s connection to close once it has nothing in progress (shutdown); channels this
     * initializer never set up are closed at once.
     */
    public static void closeWhenIdle(Channel channel) {
        RequestDispatcher dispatcher = channel.pipeline().get(RequestDispatcher.class);
        if (dispatcher != null) {
            channel.eventLoop().execute(dispatcher::closeWhenIdle);
        } else {
            channel.close();
        }
    }
}
