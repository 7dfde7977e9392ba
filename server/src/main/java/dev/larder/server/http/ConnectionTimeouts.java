package dev.larder.server.http;

import dev.larder.server.answer.HttpResponses;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Enforces {@code --read-timeout} (a request must arrive whole within it, so a client trickling bytes cannot hold a
 * connection; the time the server itself stopped reading does not count) and {@code --idle-timeout} (keep-alive
 * connections with nothing to do are closed, and so are those whose client has not read its responses for that
 * long).
 *
 * <p>One periodic check per connection instead of a timer per request: the hot path only stores a timestamp.
 */
final class ConnectionTimeouts extends ChannelInboundHandlerAdapter {

    private final ConnectionState state;
    private final long readTimeoutNanos;
    private final long idleTimeoutNanos;
    private final long checkPeriodNanos;
    private ScheduledFuture<?> check;
    // When the outbound buffer last went over the high-water mark; 0 while the client keeps up.
    private long unwritableSince;

    /**
     * {@code checkPeriodNanos}: as {@link #checkPeriodNanos(long, long, long)} derives it, once per listener (every
     * connection of a listener is checked as often); 0 = no check.
     */
    ConnectionTimeouts(ConnectionState state, long readTimeoutNanos, long idleTimeoutNanos, long checkPeriodNanos) {
        this.state = state;
        this.readTimeoutNanos = readTimeoutNanos;
        this.idleTimeoutNanos = idleTimeoutNanos;
        this.checkPeriodNanos = checkPeriodNanos;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (checkPeriodNanos > 0) {
            check = ctx.executor().scheduleAtFixedRate(() -> check(ctx), checkPeriodNanos, checkPeriodNanos,
                    TimeUnit.NANOSECONDS);
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (check != null) {
            check.cancel(false);
        }
        super.channelInactive(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        unwritableSince = ctx.channel().isWritable() ? 0 : System.nanoTime();
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof ByteBuf) {
            state.bytesRead(System.nanoTime());
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * Sits right after the HTTP decoder and stops the read-timeout clock when a request has fully arrived on the
     * wire. The dispatcher cannot be the one to tell: a request whose body is over the limit is answered 413 and
     * swallowed by the aggregator, and the clock left running would later send an unsolicited 408 on a healthy
     * keep-alive connection.
     */
    static final class RequestEnd extends ChannelInboundHandlerAdapter {
        private final ConnectionState state;

        RequestEnd(ConnectionState state) {
            this.state = state;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof LastHttpContent) {
                state.requestReceived();
            }
            ctx.fireChannelRead(msg);
        }
    }

    /**
     * How often a connection's timeouts are checked: {@code chosenNanos} when above 0, else a quarter of the shorter
     * timeout between 10 ms and 1 s; 0 when both timeouts are off (no check at all).
     */
    static long checkPeriodNanos(long readTimeoutNanos, long idleTimeoutNanos, long chosenNanos) {
        long shortest = Math.min(readTimeoutNanos > 0 ? readTimeoutNanos : Long.MAX_VALUE,
                idleTimeoutNanos > 0 ? idleTimeoutNanos : Long.MAX_VALUE);
        if (shortest == Long.MAX_VALUE) {
            return 0;
        }
        if (chosenNanos > 0) {
            return chosenNanos;
        }
        return Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(shortest / 4, TimeUnit.SECONDS.toNanos(1)));
    }

    private void check(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            return;
        }
        long now = System.nanoTime();
        if (idleTimeoutNanos > 0 && unwritableSince != 0 && now - unwritableSince > idleTimeoutNanos) {
            // The client has not read its answers for a whole idle period. Memory is bounded already (reading
            // stopped at the high-water mark); this frees the connection.
            check.cancel(false);
            ctx.close();
            return;
        }
        if (state.partialSince != 0 && !ctx.channel().config().isAutoRead()) {
            // The server stopped reading (the client's answers are over the high-water mark, or too many requests
            // wait): the rest of the request cannot arrive, through no fault of the client's. Its clock is held
            // until reading resumes (to within one check period).
            state.partialSince = now;
        }
        if (readTimeoutNanos > 0 && state.partialSince != 0 && now - state.partialSince > readTimeoutNanos) {
            check.cancel(false);
            if (state.busy) {
                ctx.close();
            } else {
                // Wire bytes from this handler, which sits below the HTTP codec (the decoder holds the partial
                // request; nothing of it reaches the dispatcher).
                HttpResponses.text(HttpResponseStatus.REQUEST_TIMEOUT, "request not received within --read-timeout")
                        .writeAndFlush(ctx, true);
            }
        } else if (idleTimeoutNanos > 0 && !state.busy && state.partialSince == 0
                && now - state.lastActivity > idleTimeoutNanos) {
            check.cancel(false);
            ctx.close();
        }
    }
}
