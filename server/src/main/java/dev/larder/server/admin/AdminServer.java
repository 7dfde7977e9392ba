package dev.larder.server.admin;

import dev.larder.server.http.Transport;
import dev.larder.server.security.ListenerSecurity;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin listener: metrics, health and profiling on a port of their own. It has its own single event-loop thread
 * and no worker pool, so it answers while the data port's event loops and workers are saturated (or, in
 * caller-runs mode, busy with storage calls themselves).
 *
 * <p>Owns the endpoints it is given: {@link #close()} closes those that are {@link AutoCloseable} (a running
 * profile is stopped) after the listener stopped.
 */
public final class AdminServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

    private final Map<String, AdminEndpoint> endpoints;
    private final EventLoopGroup eventLoop;
    private final Channel serverChannel;
    private final ListenerSecurity security;
    private volatile boolean closed;

    private AdminServer(AdminOptions options, ListenerSecurity security, Transport transport,
                        Map<String, AdminEndpoint> endpoints) {
        this.endpoints = Map.copyOf(endpoints);
        this.security = security;
        this.eventLoop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("larder-admin", true),
                transport.ioHandlers());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(eventLoop)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new AdminServerInitializer(new AdminHandler(this.endpoints), security));
        // Not sync(): it rethrows the bind failure as an undeclared IOException, which callers could not catch.
        ChannelFuture bound = bootstrap.bind(options.host(), options.port()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            eventLoop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            Throwable cause = bound.cause();
            throw new IllegalStateException(cause.getMessage() != null ? cause.getMessage() : cause.toString(), cause);
        }
        this.serverChannel = bound.channel();
    }

    /**
     * Binds {@code options.host():options.port()} with the data listener's {@code transport} and serves
     * {@code endpoints} by exact path.
     *
     * @throws IllegalStateException when the port cannot be bound (in use, not permitted), with the reason
     */
    public static AdminServer start(AdminOptions options, Transport transport, Map<String, AdminEndpoint> endpoints) {
        return new AdminServer(options, ListenerSecurity.NONE, transport, endpoints);
    }

    /** As {@link #start(AdminOptions, Transport, Map)}, asking clients for what {@code security} says. */
    public static AdminServer start(AdminOptions options, ListenerSecurity security, Transport transport,
                                    Map<String, AdminEndpoint> endpoints) {
        return new AdminServer(options, security, transport, endpoints);
    }

    /** The address actually bound. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** "admin on http://HOST:PORT (/metrics, ...)" for the startup log. */
    public String describe() {
        InetSocketAddress address = localAddress();
        String host = address.getHostString();
        // Bracketed like the data listener's line: an IPv6 literal's colons would hide the port.
        String authority = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
        return "admin on " + security.scheme() + "://" + authority + " ("
                + String.join(", ", new java.util.TreeSet<>(endpoints.keySet())) + ")" + security.describe();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        serverChannel.close().syncUninterruptibly();
        eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        for (AdminEndpoint endpoint : endpoints.values()) {
            if (endpoint instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    log.warn("closing admin endpoint {} failed: {}", endpoint.getClass().getSimpleName(), e.toString());
                }
            }
        }
        log.info("admin listener stopped");
    }
}
