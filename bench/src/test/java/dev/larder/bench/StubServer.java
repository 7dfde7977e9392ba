package dev.larder.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A server with known behaviour for accuracy tests, on a real socket (port 0). Every answer is scheduled on the event
 * loop, never by blocking it, so the stub itself adds no queueing:
 * <ul>
 *   <li>each request is answered {@code service} after it arrives (as many in parallel as arrive);</li>
 *   <li>with {@code serial}, requests queue for one server: an answer leaves at max(arrival, previous answer) +
 *       service, so the stub's capacity is 1/service;</li>
 *   <li>with a stall, the moment request number {@code stallAfter} arrives, nothing is answered for
 *       {@code stallMillis} (answers due meanwhile leave together at its end);</li>
 *   <li>with {@code putService}, PUTs are answered that long after they arrive instead (a workload switch that
 *       shows);</li>
 *   <li>with {@code slowAfterPause}, the first request after a gap of that long in the traffic and every one after it
 *       take {@code slowService} instead (a machine that slowed down between two readings of it);</li>
 *   <li>{@code /debug/profile} answers a tiny HTML page (or {@code profileStatus}), {@code /metrics} a few lines.</li>
 * </ul>
 */
final class StubServer implements AutoCloseable {

    // epoll where available: its timers are precise to microseconds, NIO's only to milliseconds.
    private final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    private final Channel server;
    private final long serviceNanos;
    private final long putServiceNanos;
    private final boolean serial;
    private final long stallAfter;
    private final long stallNanos;
    private final int profileStatus;
    private final long slowAfterPauseNanos;
    private final long slowServiceNanos;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong profiles = new AtomicLong();
    // Event-loop confined (one loop); arrivals is read after close().
    private final List<Long> arrivals = new ArrayList<>();
    private long nextFree;
    private long stallUntil;
    private long lastArrival;
    private boolean slowed;

    private StubServer(long serviceMicros, boolean serial, long stallAfter, long stallMillis, int profileStatus) {
        this(serviceMicros, serviceMicros, serial, stallAfter, stallMillis, profileStatus);
    }

    private StubServer(long serviceMicros, long putServiceMicros, boolean serial, long stallAfter, long stallMillis,
                       int profileStatus) {
        this(serviceMicros, putServiceMicros, serial, stallAfter, stallMillis, profileStatus, -1, serviceMicros);
    }

    private StubServer(long serviceMicros, long putServiceMicros, boolean serial, long stallAfter, long stallMillis,
                       int profileStatus, long slowAfterPauseMillis, long slowServiceMicros) {
        this.slowAfterPauseNanos = slowAfterPauseMillis < 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(slowAfterPauseMillis);
        this.slowServiceNanos = TimeUnit.MICROSECONDS.toNanos(slowServiceMicros);
        this.serviceNanos = TimeUnit.MICROSECONDS.toNanos(serviceMicros);
        this.putServiceNanos = TimeUnit.MICROSECONDS.toNanos(putServiceMicros);
        this.serial = serial;
        this.stallAfter = stallAfter;
        this.stallNanos = TimeUnit.MILLISECONDS.toNanos(stallMillis);
        this.profileStatus = profileStatus;
        this.server = new ServerBootstrap().group(group)
                .channel(Epoll.isAvailable() ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                new Handler());
                    }
                }).bind("127.0.0.1", 0).syncUninterruptibly().channel();
    }

    /** Answers every request after {@code serviceMicros}, in parallel. */
    static StubServer fixed(long serviceMicros) {
        return new StubServer(serviceMicros, false, -1, 0, 200);
    }

    /** Like {@link #fixed}, with one stall of {@code stallMillis} when request {@code afterRequests} arrives. */
    static StubServer stalling(long serviceMicros, long afterRequests, long stallMillis) {
        return new StubServer(serviceMicros, false, afterRequests, stallMillis, 200);
    }

    /** One request at a time, {@code serviceMicros} each: capacity 1e6/serviceMicros requests/s. */
    static StubServer serial(long serviceMicros) {
        return new StubServer(serviceMicros, true, -1, 0, 200);
    }

    /**
     * Like {@link #serial}, until the traffic pauses for {@code pauseMillis}: from the first request after that pause
     * on, {@code slowMicros} each.
     */
    static StubServer serialSlowingAfterPause(long serviceMicros, long pauseMillis, long slowMicros) {
        return new StubServer(serviceMicros, serviceMicros, true, -1, 0, 200, pauseMillis, slowMicros);
    }

    /** Answers PUTs after {@code putMicros}, everything else after {@code serviceMicros}, in parallel. */
    static StubServer slowPuts(long serviceMicros, long putMicros) {
        return new StubServer(serviceMicros, putMicros, false, -1, 0, 200);
    }

    /** Answers {@code /debug/profile} with {@code status}. */
    static StubServer withProfileStatus(long serviceMicros, int status) {
        return new StubServer(serviceMicros, false, -1, 0, status);
    }

    URI url() {
        InetSocketAddress a = (InetSocketAddress) server.localAddress();
        return URI.create("http://127.0.0.1:" + a.getPort());
    }

    long requests() {
        return requests.get();
    }

    long profiles() {
        return profiles.get();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** When each data request arrived ({@link System#nanoTime()}), in order; whole once {@link #close()} returned. */
    List<Long> arrivalNanos() {
        return List.copyOf(arrivals);
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            String uri = request.uri();
            if (uri.startsWith("/debug/profile")) {
                profiles.incrementAndGet();
                int seconds = Integer.parseInt(uri.replaceAll(".*seconds=(\\d+).*", "$1"));
                String body = profileStatus == 200 ? "<html><body>flame graph " + uri + "</body></html>" : "busy";
                ctx.executor().schedule(() -> ctx.writeAndFlush(
                                response(HttpResponseStatus.valueOf(profileStatus), body)),
                        Math.min(seconds, 1) * 200L, TimeUnit.MILLISECONDS);
                return;
            }
            if (uri.startsWith("/metrics")) {
                ctx.writeAndFlush(response(HttpResponseStatus.OK,
                        "# HELP larder_workers workers\nlarder_workers 4\nlarder_build_info{version=\"test\"} 1\n"
                                + "larder_requests_total 10\n"));
                return;
            }
            long n = requests.incrementAndGet();
            long now = System.nanoTime();
            arrivals.add(now);
            if (n == stallAfter) {
                stallUntil = now + stallNanos;
            }
            if (slowAfterPauseNanos >= 0 && n > 1 && now - lastArrival >= slowAfterPauseNanos) {
                slowed = true;
            }
            lastArrival = now;
            boolean put = request.method().name().equals("PUT");
            long service = slowed ? slowServiceNanos : put ? putServiceNanos : serviceNanos;
            long at;
            if (serial) {
                at = Math.max(now, nextFree) + service;
                nextFree = at;
            } else {
                at = now + service;
            }
            if (at < stallUntil) {
                at = stallUntil;
            }
            HttpResponseStatus status = put ? HttpResponseStatus.CREATED : HttpResponseStatus.OK;
            // The response is built when it is sent, so nothing is left unreleased if the stub closes first.
            ctx.executor().schedule(() -> ctx.writeAndFlush(response(status, "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv")),
                    Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // clients resetting their connections at the end of a run is normal here
        }

        private FullHttpResponse response(HttpResponseStatus status, String body) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
            r.headers().set(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
            r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            return r;
        }
    }
}
