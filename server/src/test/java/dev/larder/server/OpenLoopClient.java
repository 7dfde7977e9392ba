package dev.larder.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An open-loop (wrk2-style) HTTP load generator for tests: requests leave on a fixed schedule whatever the server
 * does, spread round-robin over keep-alive connections (pipelined), and latency is measured from when each request
 * <em>should</em> have been sent (the coordinated-omission correction) as well as from when it was. A connection
 * holds at most {@code maxOutstanding} unanswered requests; a request due when every connection is at that bound is
 * counted as dropped by the client (a user who gave up), so the client's own memory stays bounded.
 *
 * <p>One event-loop thread does everything, so the statistics need no locks. The mix is half GETs, half PUTs of
 * {@code valueSize} random bytes (one of 256 distinct values) over {@code keys} keys.
 */
final class OpenLoopClient implements AutoCloseable {

    /** What one phase saw. Latencies in nanoseconds. */
    static final class Phase {
        final String name;
        final double rate;
        long startNanos;
        long endNanos;
        long due;
        long sent;
        long dropped;
        long ok;              // 2xx answered during this phase's window, whatever phase sent them
        long rejected;        // 503 answered during the window
        long other;
        long closed;          // answers lost to a closed connection
        private final Histogram okLatency = new Histogram();
        private final Histogram okServiceLatency = new Histogram();
        private final Histogram rejectedLatency = new Histogram();

        Phase(String name, double rate) {
            this.name = name;
            this.rate = rate;
        }

        double seconds() {
            return (endNanos - startNanos) / 1e9;
        }

        double goodput() {
            return ok / seconds();
        }

        double offered() {
            return due / seconds();
        }

        /** Percentile of accepted (2xx) latency from the intended send time, milliseconds. */
        double okMillis(double percentile) {
            return okLatency.percentileMillis(percentile);
        }

        /** Same, from the actual send time (what a closed-loop tool would report). */
        double okServiceMillis(double percentile) {
            return okServiceLatency.percentileMillis(percentile);
        }

        /** Percentile of 503 latency from the actual send time, milliseconds. */
        double rejectedMillis(double percentile) {
            return rejectedLatency.percentileMillis(percentile);
        }

        private void addOk(long fromIntended, long fromSent) {
            okLatency.record(fromIntended);
            okServiceLatency.record(fromSent);
        }

        private void addRejected(long fromSent) {
            rejectedLatency.record(fromSent);
        }

        @Override
        public String toString() {
            return String.format("%s: offered %.0f/s (due %d, sent %d, dropped by client %d) goodput %.0f/s, 503 %d, "
                            + "other %d, closed %d; accepted p50 %.1f ms p99 %.1f ms max %.1f ms (from send: p99 %.1f ms)"
                            + "; 503 p99 %.1f ms", name, offered(), due, sent, dropped, goodput(), rejected, other,
                    closed, okMillis(50), okMillis(99), okMillis(100), okServiceMillis(99), rejectedMillis(99));
        }
    }

    /**
     * A fixed-size log-linear histogram of microseconds (about 1.6% precision), so recording costs no allocation
     * and the client's memory does not grow with the length of a run.
     */
    static final class Histogram {
        private static final int SUB = 64;
        private final long[] counts = new long[SUB * 48];
        private long total;

        void record(long nanos) {
            long v = Math.max(0, nanos / 1000);
            counts[index(v)]++;
            total++;
        }

        private static int index(long v) {
            if (v < SUB) {
                return (int) v;
            }
            int exp = 63 - Long.numberOfLeadingZeros(v);          // >= 6
            int mantissa = (int) (v >>> (exp - 6));                // 64..127
            return (exp - 5) * SUB + (mantissa - SUB);
        }

        private static long upperValue(int index) {
            if (index < SUB) {
                return index;
            }
            int exp = index / SUB + 5;
            long mantissa = index % SUB + SUB;
            return ((mantissa + 1) << (exp - 6)) - 1;
        }

        double percentileMillis(double p) {
            if (total == 0) {
                return 0;
            }
            long rank = Math.max(1, (long) Math.ceil(p / 100.0 * total));
            long seen = 0;
            for (int i = 0; i < counts.length; i++) {
                seen += counts[i];
                if (seen >= rank) {
                    return upperValue(i) / 1000.0;
                }
            }
            return upperValue(counts.length - 1) / 1000.0;
        }
    }

    private record Pending(Phase phase, long intended, long sent) {
    }

    private final class Connection extends SimpleChannelInboundHandler<FullHttpResponse> {
        final ArrayDeque<Pending> outstanding = new ArrayDeque<>();
        Channel channel;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            Pending p = outstanding.poll();
            if (p == null) {
                return;
            }
            long now = System.nanoTime();
            int status = response.status().code();
            Phase window = current;
            if (status / 100 == 2 || status == 404) {
                window.ok++;
                p.phase.addOk(now - p.intended, now - p.sent);
            } else if (status == 503) {
                window.rejected++;
                p.phase.addRejected(now - p.sent);
            } else {
                window.other++;
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            current.closed += outstanding.size();
            outstanding.clear();
        }
    }

    private final EventLoopGroup group;
    private final List<Connection> connections = new ArrayList<>();
    private final int maxOutstanding;
    private final int keys;
    private final byte[][] values;
    private final int[] mix;
    private final Random random = new Random(42);
    private Phase current = new Phase("idle", 0);
    private int next;

    OpenLoopClient(InetSocketAddress address, int connections, int maxOutstanding, int keys, int valueSize)
            throws InterruptedException {
        this(address, connections, maxOutstanding, keys, valueSize, new int[] {50, 50, 0, 0});
    }

    /** {@code mix}: percentages of GET, PUT, DELETE and short range reads (about ten keys each). */
    OpenLoopClient(InetSocketAddress address, int connections, int maxOutstanding, int keys, int valueSize, int[] mix)
            throws InterruptedException {
        if (mix.length != 4 || mix[0] + mix[1] + mix[2] + mix[3] != 100) {
            throw new IllegalArgumentException("mix: " + java.util.Arrays.toString(mix) + " (expected: 4 parts of 100)");
        }
        this.mix = mix.clone();
        this.maxOutstanding = maxOutstanding;
        this.keys = keys;
        // Distinct random values, so that RocksDB cannot compress them away and compaction does real work.
        this.values = new byte[256][valueSize];
        for (byte[] v : values) {
            random.nextBytes(v);
        }
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("load", true),
                NioIoHandler.newFactory());
        Bootstrap bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true);
        for (int i = 0; i < connections; i++) {
            Connection c = new Connection();
            c.channel = bootstrap.handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 20), c);
                }
            }).connect(address).sync().channel();
            this.connections.add(c);
        }
    }

    /** PUTs every key once (closed loop, a few at a time), so GETs find values. */
    void preload() throws Exception {
        Phase load = new Phase("preload", 0);
        CompletableFuture<Void> done = new CompletableFuture<>();
        group.next().execute(() -> {
            current = load;
            preloadStep(load, done);
        });
        // A loaded machine writes a few thousand keys a second at worst; give it that long rather than a fixed bound.
        done.get(Math.max(120, keys / 1_000), TimeUnit.SECONDS);
    }

    private void preloadStep(Phase load, CompletableFuture<Void> done) {
        long answered = load.ok + load.rejected + load.other;
        if (answered >= keys) {
            done.complete(null);
            return;
        }
        for (Connection c : connections) {
            while (c.outstanding.size() < 4 && load.sent < keys) {
                send(c, load, System.nanoTime(), put((int) load.sent));
            }
            c.channel.flush();
        }
        group.next().schedule(() -> preloadStep(load, done), 1, TimeUnit.MILLISECONDS);
    }

    /** Offers {@code rate} requests per second for {@code seconds}; returns what it saw. */
    Phase run(String name, double rate, double seconds) throws Exception {
        Phase phase = new Phase(name, rate);
        long intervalNanos = (long) (1e9 / rate);
        CompletableFuture<Void> done = new CompletableFuture<>();
        group.next().execute(() -> {
            current = phase;
            phase.startNanos = System.nanoTime();
            ScheduledFuture<?>[] tick = new ScheduledFuture<?>[1];
            tick[0] = group.next().scheduleAtFixedRate(() -> {
                long now = System.nanoTime();
                long end = phase.startNanos + (long) (seconds * 1e9);
                long until = Math.min(now, end);
                while (phase.startNanos + phase.due * intervalNanos <= until) {
                    long intended = phase.startNanos + phase.due * intervalNanos;
                    phase.due++;
                    Connection c = pick();
                    if (c == null) {
                        phase.dropped++;
                    } else {
                        send(c, phase, intended, next());
                    }
                }
                for (Connection c : connections) {
                    c.channel.flush();
                }
                if (now >= end) {
                    phase.endNanos = now;
                    tick[0].cancel(false);
                    done.complete(null);
                }
            }, 0, 1, TimeUnit.MILLISECONDS);
        });
        done.get((long) seconds + 60, TimeUnit.SECONDS);
        return phase;
    }

    /**
     * Closed loop: {@code concurrency} requests always in flight (one per connection), for {@code seconds}. Its
     * goodput is what the server sustains at that concurrency: the capacity the open-loop phases are scaled to.
     */
    Phase closedLoop(String name, int concurrency, double seconds) throws Exception {
        Phase phase = new Phase(name, 0);
        CompletableFuture<Void> done = new CompletableFuture<>();
        group.next().execute(() -> {
            current = phase;
            phase.startNanos = System.nanoTime();
            closedStep(phase, concurrency, seconds, done);
        });
        done.get((long) seconds + 60, TimeUnit.SECONDS);
        return phase;
    }

    private void closedStep(Phase phase, int concurrency, double seconds, CompletableFuture<Void> done) {
        long now = System.nanoTime();
        if (now - phase.startNanos >= seconds * 1e9) {
            phase.endNanos = now;
            done.complete(null);
            return;
        }
        for (int i = 0; i < Math.min(concurrency, connections.size()); i++) {
            Connection c = connections.get(i);
            if (c.outstanding.isEmpty()) {
                phase.due++;
                send(c, phase, now, next());
                c.channel.flush();
            }
        }
        group.next().schedule(() -> closedStep(phase, concurrency, seconds, done), 100, TimeUnit.MICROSECONDS);
    }

    /** Requests still unanswered on all connections (read on the client's thread). */
    int outstanding() throws Exception {
        return group.next().submit(() -> connections.stream().mapToInt(c -> c.outstanding.size()).sum()).get();
    }

    private Connection pick() {
        for (int i = 0; i < connections.size(); i++) {
            Connection c = connections.get(next);
            next = (next + 1) % connections.size();
            if (c.outstanding.size() < maxOutstanding && c.channel.isActive()) {
                return c;
            }
        }
        return null;
    }

    private void send(Connection c, Phase phase, long intended, FullHttpRequest request) {
        c.outstanding.add(new Pending(phase, intended, System.nanoTime()));
        phase.sent++;
        c.channel.write(request, c.channel.voidPromise());
    }

    /** The next request of the mix. */
    private FullHttpRequest next() {
        int dice = random.nextInt(100);
        int key = random.nextInt(keys);
        if (dice < mix[0]) {
            return get(key);
        } else if (dice < mix[0] + mix[1]) {
            return put(key);
        } else if (dice < mix[0] + mix[1] + mix[2]) {
            return request(HttpMethod.DELETE, "/v0/entity?id=" + key(key));
        }
        return request(HttpMethod.GET, "/v0/entities?start=" + key(key) + "&end=" + key(key + 10));
    }

    /** Fixed width, so that a range of ten numbers is a range of ten keys. */
    private static String key(int n) {
        String digits = Integer.toString(n);
        return "load-" + "0000000".substring(Math.min(7, digits.length())) + digits;
    }

    private static FullHttpRequest request(HttpMethod method, String target) {
        FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, target, Unpooled.EMPTY_BUFFER);
        r.headers().set(HttpHeaderNames.HOST, "larder").setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        return r;
    }

    private FullHttpRequest put(int key) {
        FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT,
                "/v0/entity?id=" + key(key), Unpooled.wrappedBuffer(values[random.nextInt(values.length)]));
        r.headers().set(HttpHeaderNames.HOST, "larder").setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
        return r;
    }

    private FullHttpRequest get(int key) {
        return request(HttpMethod.GET, "/v0/entity?id=" + key(key));
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
