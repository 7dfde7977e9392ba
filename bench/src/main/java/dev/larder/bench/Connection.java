package dev.larder.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.ssl.SslContext;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One keep-alive connection with its own send schedule: in each phase of the {@link Schedule}, request {@code k} is
 * due at {@code phase start + (offset + k) × interval} ({@link Arrivals#UNIFORM}; with {@link Arrivals#POISSON} the
 * gaps after the first are exponential with that mean), one request is in flight at a time, and a request whose
 * predecessor answered late goes out the moment the connection is free. Latency is taken from the due time
 * (coordinated-omission corrected, as wrk2) and, beside it, from the actual send.
 *
 * <p>A connection moves to the next phase only when its next due time falls in it: requests that fell due before a
 * switch are still sent, with the old phase's request kind, and their latency still counts from their due time.
 *
 * <p>Confined to its thread's event loop. The same instance is the handler of each channel it opens in turn,
 * never of two at once, hence {@code @Sharable}.
 */
@ChannelHandler.Sharable
final class Connection extends ChannelInboundHandlerAdapter {

    private final GeneratorThread thread;
    private final Bootstrap bootstrap;
    private final ChannelHandler handler;
    private final ResponseParser parser = new ResponseParser();
    private final Runnable sendTask = this::onTimer;
    private final Runnable reconnectTask = this::connect;

    // This connection's shift within one interval, as a fraction of it (j / connections), so the connections of
    // one phase spread their requests evenly instead of sending together.
    private final double offset;
    // In the current phase: request k is due at firstDue + dueOffset, which arrivals moves on by about one interval
    // per request (interval 0 = closed loop, due = now).
    private final Arrivals arrivals;
    private final SplittableRandom random;
    private int phase;
    private double intervalNanos;
    private long firstDue;
    private long sequence;
    private double dueOffset;

    private Channel channel;
    private boolean timerPending;
    private boolean inFlight;
    private boolean exhausted;
    private long freeSince;
    private long sentDue;
    private long sentAt;

    Connection(GeneratorThread thread, Bootstrap bootstrap, SslContext tls, double offset, Arrivals arrivals,
               SplittableRandom random) {
        this.thread = thread;
        this.bootstrap = bootstrap;
        this.handler = tls == null ? this : new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                // Requests written before the handshake ends wait in the SslHandler: the handshake is part of the
                // first request's latency, as it is for wrk.
                ch.pipeline().addLast(tls.newHandler(ch.alloc()), Connection.this);
            }
        };
        this.offset = offset;
        this.arrivals = arrivals;
        this.random = random;
    }

    /** Opens the channel; the future completes when it is connected (or failed). */
    ChannelFuture connect() {
        ChannelFuture f = bootstrap.clone().handler(handler).connect();
        channel = f.channel();
        f.addListener(done -> {
            if (!done.isSuccess()) {
                thread.connectError();
                channel = null;
                if (thread.running()) {
                    thread.loop().schedule(reconnectTask, 10, TimeUnit.MILLISECONDS);
                }
            } else {
                freeSince = System.nanoTime();
                if (thread.running()) {
                    trySend();
                }
            }
        });
        return f;
    }

    /** Starts the thread's schedule at its first phase. */
    void start() {
        enter(0, false);
        if (channel == null) {
            connect(); // its first connect failed; keep trying while the run lasts
        } else {
            trySend();
        }
    }

    boolean inFlight() {
        return inFlight;
    }

    long sentAt() {
        return sentAt;
    }

    /**
     * Requests that were due before {@code until} but never went out (the connection was busy or down), counted at
     * the current phase's interval (an approximation when the backlog spans a phase it has not reached yet).
     */
    long behindSchedule(long until) {
        if (intervalNanos == 0 || exhausted) {
            return 0;
        }
        long due = due();
        if (due >= until) {
            return 0;
        }
        return 1 + (long) ((until - due) / intervalNanos);
    }

    private long due() {
        return firstDue + (long) dueOffset;
    }

    // The due time of the next request, moving on to later phases once it falls in them.
    private long nextDue(long now) {
        Schedule schedule = thread.schedule();
        while (true) {
            long due = intervalNanos == 0 ? now : due();
            if (phase + 1 >= schedule.phases() || due < schedule.start(phase + 1)) {
                return due;
            }
            enter(phase + 1, true);
        }
    }

    private void enter(int next, boolean switching) {
        Schedule schedule = thread.schedule();
        double interval = schedule.interval(next);
        phase = next;
        // The same rate continues the same schedule (a warm-up flowing into its window keeps its exact timing).
        if (switching && interval == intervalNanos) {
            return;
        }
        intervalNanos = interval;
        firstDue = schedule.start(next) + (long) (offset * interval);
        sequence = 0;
        dueOffset = 0;
    }

    void close() {
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    /** The request has been outstanding too long: drop the connection (it reconnects) and count a timeout. */
    void timeout() {
        thread.timeoutError();
        inFlight = false;
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    private void onTimer() {
        timerPending = false;
        trySend();
    }

    private void trySend() {
        Channel ch = channel;
        if (inFlight || exhausted || timerPending || ch == null || !ch.isActive() || !thread.running()) {
            return;
        }
        long now = System.nanoTime();
        long due = nextDue(now);
        if (due > now) {
            timerPending = true;
            thread.loop().schedule(sendTask, due - now, TimeUnit.NANOSECONDS);
            return;
        }
        ByteBuf request = thread.requests(phase).next(ch.alloc());
        if (request == null) {
            exhausted = true;
            thread.connectionIdle();
            return;
        }
        sentDue = due;
        sentAt = now;
        sequence++;
        dueOffset = arrivals.offset(sequence, dueOffset, intervalNanos, random);
        inFlight = true;
        // How late the generator itself was: the request could have gone at max(due, connection free). A closed
        // loop has no schedule to be late for.
        if (intervalNanos != 0) {
            thread.recordLag(now, now - Math.max(due, freeSince));
        }
        ch.writeAndFlush(request, ch.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        // One clock read per read event: it is when the bytes (and so the response) arrived.
        long now = System.nanoTime();
        try {
            thread.bytesRead(now, in.readableBytes());
            while (in.isReadable()) {
                if (!inFlight) {
                    // Bytes nobody asked for: the stream is out of step, start over on a new connection.
                    thread.readError();
                    ctx.close();
                    return;
                }
                if (!parser.parse(in)) {
                    return;
                }
                responseComplete(ctx, now);
            }
        } catch (ResponseParser.MalformedResponseException e) {
            thread.readError();
            inFlight = false;
            ctx.close();
        } finally {
            in.release();
        }
    }

    private void responseComplete(ChannelHandlerContext ctx, long now) {
        inFlight = false;
        freeSince = now;
        thread.responseReceived(now, sentDue, sentAt, parser.status());
        boolean keepAlive = parser.keepAlive();
        parser.reset();
        if (!keepAlive) {
            ctx.close(); // channelInactive reconnects
            return;
        }
        trySend();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (parser.endOfInput() && inFlight) {
            responseComplete(ctx, System.nanoTime());
        } else if (inFlight) {
            thread.readError();
        }
        inFlight = false;
        parser.reset();
        if (ctx.channel() == channel) {
            channel = null;
        }
        if (thread.running() && !exhausted) {
            connect();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Write failures (void promise) and socket errors both land here; the channel is closed and reconnects.
        if (inFlight) {
            thread.readError();
            inFlight = false;
        }
        ctx.close();
    }
}
