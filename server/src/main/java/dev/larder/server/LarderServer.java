package dev.larder.server;

import dev.larder.server.config.CoalesceWait;
import dev.larder.server.config.ForegroundPolicy;
import dev.larder.server.config.MissReads;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.context.ServerContext;
import dev.larder.server.http.CoalescingIoHandler;
import dev.larder.server.http.ConnectionLimiter;
import dev.larder.server.http.LarderServerInitializer;
import dev.larder.server.http.Transport;
import dev.larder.server.offload.Offload;
import dev.larder.server.security.ListenerSecurity;
import dev.larder.server.threads.Rescheduler;
import dev.larder.server.threads.SlicedThreadFactory;
import dev.larder.server.threads.ThreadSlice;
import dev.larder.storage.Store;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data listener: event loops accepting and parsing HTTP, a bounded worker pool running storage calls. Does not
 * own the store (whoever opened it closes it, after this).
 *
 * <p>{@link #close()} shuts down in reverse order of start: stop accepting, refuse new requests, let queued and
 * running ones finish within {@code --shutdown-timeout}, answer what is left with 503, close the connections once
 * their last response is written, then stop the event loops and the workers.
 */
public final class LarderServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LarderServer.class);

    private final ServerOptions options;
    private final Transport transport;
    private final EventLoopGroup eventLoops;
    private final Offload offload;
    private final ServerContext context;
    private final ConnectionLimiter limiter;
    private final ChannelGroup connections;
    private final Channel serverChannel;
    private final ListenerSecurity security;
    /** {@code null} with {@code --reschedule-interval off}. */
    private final Rescheduler rescheduler;
    private final LongAdder coalesceSpin = new LongAdder();
    private volatile boolean closed;

    private LarderServer(ServerOptions options, ListenerSecurity security, Store store, ServerObserver observer) {
        this.options = options;
        this.security = security;
        this.transport = Transport.select(options.transport());
        this.eventLoops = new MultiThreadIoEventLoopGroup(options.ioThreads(),
                new SlicedThreadFactory("larder-io",
                        ThreadSlice.of(options.foregroundSlice(), options.fifoForeground())),
                CoalescingIoHandler.factory(transport.ioHandlers(), options.ioCoalesce(), options.ioCoalesceWait(),
                        store::backgroundBusy, coalesceSpin));
        this.offload = Offload.create(options, observer);
        this.context = new ServerContext(options, store, offload, observer);
        this.limiter = new ConnectionLimiter(options.maxConnections(), observer);
        this.connections = new DefaultChannelGroup("larder-connections", GlobalEventExecutor.INSTANCE);
        LarderServerInitializer initializer = new LarderServerInitializer(context, limiter, security);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(eventLoops)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, readBuffers())
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(options.writeHighWaterMark() / 2, options.writeHighWaterMark()))
                .childHandler(new io.netty.channel.ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        connections.add(channel);
                        channel.pipeline().addLast(initializer);
                    }
                });
        ChannelFuture bound = bootstrap.bind(options.host(), options.port()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            eventLoops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            offload.close();
            Throwable cause = bound.cause();
            throw new IllegalStateException("cannot listen on " + options.host() + ":" + options.port() + ": "
                    + (cause == null ? "unknown" : cause.getMessage()), cause);
        }
        this.serverChannel = bound.channel();
        this.rescheduler = options.rescheduleInterval().isZero() ? null
                : Rescheduler.start(options.rescheduleInterval(), store::backgroundBusy,
                        ThreadSlice.of(ServerOptions.MIN_SLICE).atNice(options.rescheduleNice()));
    }

    /**
     * Netty's default read buffer shrinks to 64 bytes after a run of small requests (GETs), so the first PUT after
     * them arrives in two or three reads: extra reads, and the decoder's paths for a partial request, which C2 had
     * compiled away during the GETs and deoptimises in the middle of the switch (docs/performance.md, session 8).
     * A 2 KiB floor holds any request of the benchmarks' shape in one read; larger bodies still grow it to 64 KiB.
     */
    private static AdaptiveRecvByteBufAllocator readBuffers() {
        return new AdaptiveRecvByteBufAllocator(2048, 2048, 64 * 1024);
    }

    /**
     * Binds and starts serving.
     *
     * @throws IllegalStateException when the requested transport is unavailable or the address cannot be bound
     */
    public static LarderServer start(ServerOptions options, Store store, ServerObserver observer) {
        return new LarderServer(options, ListenerSecurity.NONE, store, observer);
    }

    /** As {@link #start(ServerOptions, Store, ServerObserver)}, asking clients for what {@code security} says. */
    public static LarderServer start(ServerOptions options, ListenerSecurity security, Store store,
                                     ServerObserver observer) {
        return new LarderServer(options, security, store, observer);
    }

    /** The address actually bound (the port is known here when 0 was asked for). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    public Transport transport() {
        return transport;
    }

    public ServerOptions options() {
        return options;
    }

    /** The event loops, for metrics binders. */
    public EventLoopGroup eventLoops() {
        return eventLoops;
    }

    /** The adaptive concurrency limit now; -1 unless {@code --rejection adaptive}. */
    public int concurrencyLimit() {
        return offload.concurrencyLimit();
    }

    /** Requests admitted under the adaptive limit and not yet answered; -1 unless {@code --rejection adaptive}. */
    public int limitedInFlight() {
        return offload.limitedInFlight();
    }

    /** Requests waiting per worker right now (empty in synchronous mode). */
    public int[] pendingPerWorker() {
        return offload.pendingPerWorker();
    }

    /**
     * Seconds the event loops have spun through coalescing windows ({@code --io-coalesce-wait spin}); -1 when they
     * never spin. The spin is CPU time of the loops' threads that served no request.
     */
    public double coalesceSpinSeconds() {
        return spinsInCoalescingWindows() ? coalesceSpin.sum() / 1e9 : -1;
    }

    private boolean spinsInCoalescingWindows() {
        return !options.ioCoalesce().isZero() && options.ioCoalesceWait() == CoalesceWait.SPIN;
    }

    /** The rescheduler's wake-ups so far ({@code --reschedule-interval}); -1 when it is off. */
    public long rescheduleWakeups() {
        return rescheduler == null ? -1 : rescheduler.wakeups();
    }

    /** Connections open right now. */
    public int openConnections() {
        return limiter.open();
    }

    /** Serving and not shutting down. */
    public boolean ready() {
        return !closed && serverChannel.isActive() && !context.shuttingDown();
    }

    /** One line with the effective configuration, for the startup log. */
    public String describe() {
        String pool = options.synchronous()
                ? "workers=0 (synchronous: storage on the event loop)"
                : "workers=" + options.workers() + " queue=" + options.queueSize() + "/worker (capacity "
                        + options.queueCapacity() + ") rejection=" + options.rejection().flag()
                        + (options.rejection() == RejectionMode.ADAPTIVE
                                ? " limit-algorithm=" + options.limitAlgorithm().flag() : "")
                        + (options.maxQueueDelay().isZero() ? "" : " max-queue-delay=" + options.maxQueueDelay())
                        + " inline-batch=" + options.inlineBatch()
                        + " miss-reads=" + (context.loopMissReads.enabled() ? "loop" : "workers")
                        + (options.missReads() == MissReads.AUTO ? " (auto)" : "");
        InetSocketAddress address = localAddress();
        String host = address.getHostString();
        // An IPv6 literal needs brackets in a URL, or the port cannot be told from the address.
        String authority = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
        String coalesce = options.ioCoalesce().isZero() ? ""
                : " io-coalesce=" + options.ioCoalesce().toNanos() / 1000 + "us io-coalesce-wait="
                        + options.ioCoalesceWait().flag();
        String reschedule = rescheduler == null ? ""
                : " reschedule-interval=" + options.rescheduleInterval().toNanos() / 1000 + "us reschedule-nice="
                        + options.rescheduleNice();
        String policy = options.foregroundPolicy() == ForegroundPolicy.FAIR ? ""
                : " foreground-policy=" + options.foregroundPolicy().flag();
        return "transport=" + transport.describe() + " io-threads=" + options.ioThreads() + policy + coalesce
                + reschedule + " " + pool + " listening on " + security.scheme() + "://" + authority
                + security.describe();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + options.shutdownTimeout().toNanos();
        context.beginShutdown();
        serverChannel.close().syncUninterruptibly();
        offload.drain(options.shutdownTimeout());
        for (Channel channel : connections) {
            LarderServerInitializer.closeWhenIdle(channel);
        }
        // Responses already handed to the event loops get written before the loops stop.
        long grace = Math.max(deadline - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(500));
        long until = System.nanoTime() + grace;
        while (!connections.isEmpty() && System.nanoTime() - until < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        connections.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        eventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        offload.close();
        if (rescheduler != null) {
            rescheduler.close();
        }
        log.info("data listener stopped");
    }

    /** For tests and the CLI: how long {@link #close()} may wait for requests in progress. */
    public Duration shutdownTimeout() {
        return options.shutdownTimeout();
    }
}
