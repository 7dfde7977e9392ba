package dev.larder.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Drives one run: {@code threads} event loops, {@code connections} spread over them round-robin, each connection on
 * its own schedule. The schedules of all connections are phase-shifted evenly across one interval, so the
 * aggregate load is smooth rather than {@code connections} requests at once.
 */
final class LoadGenerator {

    /**
     * The shape of one run.
     *
     * @param target      where to connect
     * @param rate        total requests/s; 0 = closed loop (each connection sends as soon as it is answered)
     * @param connections keep-alive connections
     * @param threads     event loops
     * @param warmup      excluded from the results
     * @param duration    the measured window; {@code null} for a bounded run (prefill) that ends when the request
     *                    sources run dry
     * @param timeout     a request unanswered this long is counted as a timeout and its connection reopened
     */
    record Plan(URI target, double rate, int connections, int threads, Duration warmup, Duration duration,
                Duration timeout) {
    }

    /** Told when the schedule is fixed, so that side jobs (profiling) can line up with the measured window. */
    interface Listener {
        void scheduled(long measureStartNanos, long measureEndNanos);
    }

    /**
     * What the threads measured.
     *
     * @param threads per-thread statistics
     * @param seconds length of the measured window (for a bounded run: from start to the last answer)
     */
    record Outcome(List<ThreadStats> threads, double seconds) {
    }

    private static final long START_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private LoadGenerator() {
    }

    /** The transport the generator uses here: epoll where available, else NIO. */
    static String transportName() {
        return Epoll.isAvailable() ? "epoll" : "nio";
    }

    static Outcome run(Plan plan, IntFunction<RequestSource> sourceForThread, Listener listener) {
        IoHandlerFactory handlers = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends SocketChannel> channelClass = Epoll.isAvailable()
                ? EpollSocketChannel.class : NioSocketChannel.class;
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(plan.threads(),
                new DefaultThreadFactory("larder-bench", true), handlers);
        try {
            return run(plan, sourceForThread, listener, group, channelClass);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    private static Outcome run(Plan plan, IntFunction<RequestSource> sourceForThread, Listener listener,
                               MultiThreadIoEventLoopGroup group, Class<? extends SocketChannel> channelClass) {
        URI target = plan.target();
        int port = target.getPort() > 0 ? target.getPort() : 80;
        InetSocketAddress address = new InetSocketAddress(target.getHost(), port);
        if (address.isUnresolved()) {
            throw new BenchException("cannot resolve " + target.getHost());
        }
        long timeoutNanos = plan.timeout().toNanos();
        double intervalNanos = plan.rate() > 0 ? plan.connections() * 1e9 / plan.rate() : 0;

        List<GeneratorThread> threads = new ArrayList<>();
        int t = 0;
        for (EventExecutor executor : group) {
            threads.add(new GeneratorThread((EventLoop) executor, sourceForThread.apply(t++), timeoutNanos));
        }
        // Connection j goes to thread j % threads; its phase is j/connections of an interval.
        List<List<Integer>> indexes = new ArrayList<>();
        for (int i = 0; i < threads.size(); i++) {
            indexes.add(new ArrayList<>());
        }
        for (int j = 0; j < plan.connections(); j++) {
            indexes.get(j % threads.size()).add(j);
        }

        List<ChannelFuture> connects = new ArrayList<>();
        for (int i = 0; i < threads.size(); i++) {
            GeneratorThread thread = threads.get(i);
            Bootstrap bootstrap = new Bootstrap().group(thread.loop()).channel(channelClass)
                    .remoteAddress(address)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                            (int) Math.min(Integer.MAX_VALUE, Math.max(1000, plan.timeout().toMillis())));
            int count = indexes.get(i).size();
            connects.addAll(await(thread.loop().submit(() -> {
                List<ChannelFuture> fs = new ArrayList<>();
                for (int k = 0; k < count; k++) {
                    Connection c = new Connection(thread, bootstrap, intervalNanos);
                    thread.add(c);
                    fs.add(c.connect());
                }
                return fs;
            }), 10_000));
        }
        Throwable lastCause = null;
        int connected = 0;
        for (ChannelFuture f : connects) {
            f.awaitUninterruptibly(Math.max(1000, plan.timeout().toMillis()) + 1000);
            if (f.isSuccess()) {
                connected++;
            } else {
                lastCause = f.cause();
            }
        }
        if (connected == 0) {
            throw new BenchException("cannot connect to " + address.getHostString() + ":" + port + ": "
                    + (lastCause == null ? "timed out" : lastCause.getMessage()), lastCause);
        }

        boolean bounded = plan.duration() == null;
        long t0 = System.nanoTime() + START_DELAY_NANOS;
        long measureStart = bounded ? t0 : t0 + plan.warmup().toNanos();
        long measureEnd = bounded ? Long.MAX_VALUE / 2 : measureStart + plan.duration().toNanos();
        if (listener != null) {
            listener.scheduled(measureStart, measureEnd);
        }
        List<Promise<Void>> exhausted = new ArrayList<>();
        List<Future<ThreadStats>> results = new ArrayList<>();
        for (int i = 0; i < threads.size(); i++) {
            GeneratorThread thread = threads.get(i);
            long[] firstDue = new long[indexes.get(i).size()];
            for (int k = 0; k < firstDue.length; k++) {
                firstDue[k] = t0 + (long) (intervalNanos * indexes.get(i).get(k) / plan.connections());
            }
            Promise<Void> done = thread.loop().newPromise();
            exhausted.add(done);
            // Everyone starts at t0, closed loop included, so nothing is answered before the window can open.
            thread.loop().schedule(() -> thread.start(firstDue, measureStart, measureEnd, done),
                    t0 - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (!bounded) {
                results.add(thread.loop().schedule(() -> {
                    ThreadStats stats = thread.snapshot(measureEnd);
                    thread.stop();
                    return stats;
                }, measureEnd - System.nanoTime(), TimeUnit.NANOSECONDS));
            }
        }
        if (bounded) {
            awaitExhausted(threads, exhausted, plan.timeout());
            long end = System.nanoTime();
            for (GeneratorThread thread : threads) {
                results.add(thread.loop().submit(() -> {
                    ThreadStats stats = thread.snapshot(end);
                    thread.stop();
                    return stats;
                }));
            }
            List<ThreadStats> stats = collect(results, 60_000);
            return new Outcome(stats, (end - t0) / 1e9);
        }
        long waitMillis = TimeUnit.NANOSECONDS.toMillis(measureEnd - System.nanoTime()) + 30_000;
        List<ThreadStats> stats = collect(results, waitMillis);
        return new Outcome(stats, (measureEnd - measureStart) / 1e9);
    }

    // A bounded run has no deadline, so it must notice when the server stops answering instead of waiting forever.
    private static void awaitExhausted(List<GeneratorThread> threads, List<Promise<Void>> exhausted,
                                       Duration timeout) {
        long stallLimit = timeout.toNanos() * 2 + TimeUnit.SECONDS.toNanos(5);
        long lastProgress = -1;
        long lastProgressAt = System.nanoTime();
        for (Promise<Void> done : exhausted) {
            while (!done.awaitUninterruptibly(1000)) {
                long progress = 0;
                for (GeneratorThread t : threads) {
                    progress += await(t.loop().submit(t::completedTotal), 10_000);
                }
                long now = System.nanoTime();
                if (progress != lastProgress) {
                    lastProgress = progress;
                    lastProgressAt = now;
                } else if (now - lastProgressAt > stallLimit) {
                    throw new BenchException("no answer for " + TimeUnit.NANOSECONDS.toSeconds(now - lastProgressAt)
                            + "s after " + progress + " responses: the server stopped answering");
                }
            }
        }
    }

    private static List<ThreadStats> collect(List<Future<ThreadStats>> results, long waitMillis) {
        List<ThreadStats> stats = new ArrayList<>();
        for (Future<ThreadStats> f : results) {
            stats.add(await(f, waitMillis));
        }
        return stats;
    }

    private static <T> T await(Future<T> future, long millis) {
        try {
            return future.get(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchException("interrupted", e);
        } catch (ExecutionException e) {
            throw new BenchException("generator thread failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new BenchException("generator thread did not finish in time", e);
        }
    }
}
