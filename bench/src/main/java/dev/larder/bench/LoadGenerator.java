package dev.larder.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
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
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;

/**
 * Drives one run: {@code threads} event loops, {@code connections} spread over them round-robin, each connection on
 * its own schedule through the run's phases (a warm-up and its window, or the tail benchmark's phases one after
 * another on the same connections). The schedules of all connections are phase-shifted evenly across one interval,
 * so the aggregate load is smooth rather than {@code connections} requests at once.
 */
final class LoadGenerator {

    /**
     * One stretch of a run at one rate with one request kind.
     *
     * @param name     for outputs ({@code warm-up}, {@code PUT}, ...)
     * @param rate     total requests/s; 0 = closed loop (each connection sends as soon as it is answered)
     * @param duration how long it lasts; {@code null} (last phase only) = until the request sources run dry
     * @param measured whether it is a measured window (else its answers are not counted, as a warm-up's)
     * @param sources  the request source of each generator thread (called with the thread's index)
     */
    record Phase(String name, double rate, Duration duration, boolean measured, IntFunction<RequestSource> sources) {
    }

    /**
     * The shape of one run.
     *
     * @param target          where to connect
     * @param connections     keep-alive connections
     * @param threads         event loops
     * @param timeout         a request unanswered this long is counted as a timeout and its connection reopened
     * @param thresholdMicros the timeline counts answers above this latency per second (the SLO bound)
     * @param phases          what to send, in order; zero-length phases are skipped
     * @param arrivals        how each connection spaces its requests at a fixed rate
     * @param seed            seed of the connections' Poisson gaps
     */
    record Plan(URI target, int connections, int threads, Duration timeout, long thresholdMicros,
                List<Phase> phases, Arrivals arrivals, long seed) {

        /** Evenly spaced requests ({@link Arrivals#UNIFORM}). */
        Plan(URI target, int connections, int threads, Duration timeout, long thresholdMicros, List<Phase> phases) {
            this(target, connections, threads, timeout, thresholdMicros, phases, Arrivals.UNIFORM, 0);
        }

        Plan {
            phases = phases.stream().filter(p -> p.duration() == null || !p.duration().isZero()).toList();
            if (phases.isEmpty() || phases.stream().noneMatch(Phase::measured)) {
                throw new IllegalArgumentException("plan: no measured phase");
            }
            for (int i = 0; i + 1 < phases.size(); i++) {
                if (phases.get(i).duration() == null) {
                    throw new IllegalArgumentException("plan: only the last phase can be open-ended");
                }
            }
        }

        /** A warm-up then one measured window at the same rate with the same requests. */
        static Plan single(URI target, double rate, int connections, int threads, Duration warmup, Duration duration,
                           Duration timeout, long thresholdMicros, IntFunction<RequestSource> sources,
                           Arrivals arrivals, long seed) {
            return new Plan(target, connections, threads, timeout, thresholdMicros,
                    List.of(new Phase("warm-up", rate, warmup, false, sources),
                            new Phase("window", rate, duration, true, sources)), arrivals, seed);
        }

        /** A closed loop measured until the request sources run dry (the prefill). */
        static Plan untilExhausted(URI target, int connections, int threads, Duration timeout,
                                   IntFunction<RequestSource> sources) {
            return new Plan(target, connections, threads, timeout, Long.MAX_VALUE,
                    List.of(new Phase("all", 0, null, true, sources)));
        }
    }

    /** Told when the schedule is fixed, so that side jobs (profiling) can line up with the measured window. */
    interface Listener {
        void scheduled(long measureStartNanos, long measureEndNanos);
    }

    /**
     * What the threads measured in one measured phase.
     *
     * @param name    the phase's name
     * @param threads per-thread statistics
     * @param seconds length of the window (for a run until the sources ran dry: from start to the last answer)
     * @param hostSteal share (0-1) of the machine's CPU time its host took meanwhile ({@link HostSteal}); NaN unknown
     * @param serverCores the server's CPU meanwhile in cores ({@link ProcessCpuTime}); NaN unknown
     * @param serverBackgroundCores the part of it its lower-priority threads used; NaN unknown
     * @param serverAllowedCpus how many CPUs the server may run on ({@link ProcessCpuTime#allowedCpus}); 0 unknown
     * @param generatorCores this generator's own CPU meanwhile in cores (its whole JVM); NaN unknown
     * @param generatorCpus how many CPUs this generator may run on
     * @param machineSeconds the server's CPU and the host's steal second by second, from the window's start
     */
    record Window(String name, List<ThreadStats> threads, double seconds, double hostSteal, double serverCores,
                  double serverBackgroundCores, int serverAllowedCpus, double generatorCores, int generatorCpus,
                  List<Timeline.Machine> machineSeconds) {
    }

    /** @param windows one per measured phase, in order */
    record Outcome(List<Window> windows) {
    }

    private static final long START_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private LoadGenerator() {
    }

    /** The transport the generator uses here: epoll where available, else NIO. */
    static String transportName() {
        return Epoll.isAvailable() ? "epoll" : "nio";
    }

    static Outcome run(Plan plan, Listener listener) {
        IoHandlerFactory handlers = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends SocketChannel> channelClass = Epoll.isAvailable()
                ? EpollSocketChannel.class : NioSocketChannel.class;
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(plan.threads(),
                new DefaultThreadFactory("larder-bench", true), handlers);
        List<Long> serverPids = ListeningProcesses.serving(plan.target());
        BitSet serverCpus = ListeningProcesses.allowedCpuSet(serverPids);
        try (HostSteal steal = HostSteal.start(serverCpus);
             ProcessCpuTime cpu = ProcessCpuTime.start(serverPids, serverCpus);
             ProcessCpuTime own = ProcessCpuTime.ofThisProcess()) {
            return run(plan, listener, group, channelClass, steal, cpu, own);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    private static Outcome run(Plan plan, Listener listener, MultiThreadIoEventLoopGroup group,
                               Class<? extends SocketChannel> channelClass, HostSteal steal, ProcessCpuTime cpu,
                               ProcessCpuTime own) {
        URI target = plan.target();
        int port = target.getPort() > 0 ? target.getPort() : ClientTls.https(target) ? 443 : 80;
        InetSocketAddress address = new InetSocketAddress(target.getHost(), port);
        if (address.isUnresolved()) {
            throw new BenchException("cannot resolve " + target.getHost());
        }
        SslContext tls = ClientTls.https(target) ? ClientTls.context() : null;
        long timeoutNanos = plan.timeout().toNanos();
        List<Phase> phases = plan.phases();

        List<GeneratorThread> threads = new ArrayList<>();
        int t = 0;
        for (EventExecutor executor : group) {
            RequestSource[] sources = new RequestSource[phases.size()];
            for (int p = 0; p < sources.length; p++) {
                // Phases given the same sources share them: a warm-up's random ids go on into its window.
                IntFunction<RequestSource> f = phases.get(p).sources();
                sources[p] = p > 0 && f == phases.get(p - 1).sources() ? sources[p - 1] : f.apply(t);
            }
            threads.add(new GeneratorThread((EventLoop) executor, sources, timeoutNanos));
            t++;
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
            Bootstrap bootstrap = connections(thread.loop(), channelClass, address, plan.timeout());
            List<Integer> mine = indexes.get(i);
            connects.addAll(await(thread.loop().submit(() -> {
                List<ChannelFuture> fs = new ArrayList<>();
                for (int j : mine) {
                    Connection c = new Connection(thread, bootstrap, tls, (double) j / plan.connections(),
                            plan.arrivals(), new SplittableRandom(plan.seed() * 1_000_003L + j));
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

        // What earlier runs of this process left in the young generation would otherwise be copied by the first
        // young collection inside this one: against nginx a 16-27 ms pause of the generator, seen as a p99 spike in
        // that second (docs/performance.md, session 16). Collected here, before the schedule starts.
        System.gc();
        long t0 = System.nanoTime() + START_DELAY_NANOS;
        long[] starts = new long[phases.size() + 1];
        double[] intervals = new double[phases.size()];
        boolean[] measured = new boolean[phases.size()];
        starts[0] = t0;
        for (int p = 0; p < phases.size(); p++) {
            Phase phase = phases.get(p);
            starts[p + 1] = phase.duration() == null ? Long.MAX_VALUE / 2 : starts[p] + phase.duration().toNanos();
            intervals[p] = phase.rate() > 0 ? plan.connections() * 1e9 / phase.rate() : 0;
            measured[p] = phase.measured();
        }
        Schedule schedule = new Schedule(starts, intervals);
        boolean bounded = phases.get(phases.size() - 1).duration() == null;
        long end = starts[phases.size()];
        if (listener != null) {
            int first = 0;
            while (!measured[first]) {
                first++;
            }
            int last = measured.length - 1;
            while (!measured[last]) {
                last--;
            }
            listener.scheduled(starts[first], starts[last + 1]);
        }
        List<Promise<Void>> exhausted = new ArrayList<>();
        List<Future<List<ThreadStats>>> results = new ArrayList<>();
        for (GeneratorThread thread : threads) {
            Promise<Void> done = thread.loop().newPromise();
            exhausted.add(done);
            // Everyone starts at t0, closed loop included, so nothing is answered before the window can open.
            thread.loop().schedule(() -> thread.start(schedule, measured, plan.thresholdMicros(), done),
                    t0 - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (!bounded) {
                results.add(thread.loop().schedule(() -> {
                    List<ThreadStats> stats = thread.snapshot(end);
                    thread.stop();
                    return stats;
                }, end - System.nanoTime(), TimeUnit.NANOSECONDS));
            }
        }
        if (bounded) {
            awaitExhausted(threads, exhausted, plan.timeout());
            long stopped = System.nanoTime();
            for (GeneratorThread thread : threads) {
                results.add(thread.loop().submit(() -> {
                    List<ThreadStats> stats = thread.snapshot(stopped);
                    thread.stop();
                    return stats;
                }));
            }
            List<List<ThreadStats>> stats = collect(results, 60_000);
            return outcome(phases, stats, p -> (stopped - t0) / 1e9, starts,
                    p -> Math.min(starts[p + 1], stopped), steal, cpu, own);
        }
        long waitMillis = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()) + 30_000;
        List<List<ThreadStats>> stats = collect(results, waitMillis);
        return outcome(phases, stats, p -> phases.get(p).duration().toNanos() / 1e9, starts, p -> starts[p + 1],
                steal, cpu, own);
    }

    /**
     * Stops the samplers and makes the windows: phase p spans {@code starts[p]} to {@code endOf(p)}, and every
     * window's figures and every second's search one copy of each sampler's readings, taken here.
     */
    private static Outcome outcome(List<Phase> phases, List<List<ThreadStats>> stats, IntToDoubleFunction seconds,
                                   long[] starts, IntToLongFunction endOf, HostSteal steal, ProcessCpuTime cpu,
                                   ProcessCpuTime own) {
        // HostSteal's close takes the reading after the last window's end; ProcessCpuTime uses readings inside it.
        steal.close();
        cpu.close();
        own.close();
        HostSteal.Readings stolen = steal.readings();
        ProcessCpuTime.Readings server = cpu.readings();
        ProcessCpuTime.Readings generator = own.readings();
        return new Outcome(windows(phases, stats, seconds,
                p -> stolen.share(starts[p], endOf.applyAsLong(p)),
                p -> server.cores(starts[p], endOf.applyAsLong(p)),
                p -> server.backgroundCores(starts[p], endOf.applyAsLong(p)), cpu.allowedCpus(),
                p -> generator.cores(starts[p], endOf.applyAsLong(p)), own.allowedCpus(),
                p -> machineSeconds(starts[p], endOf.applyAsLong(p), stolen, server)));
    }

    /** Second i of the span is {@code [from + i s, from + (i+1) s)}, the last one cut at {@code to}. */
    static List<Timeline.Machine> machineSeconds(long from, long to, HostSteal.Readings steal,
                                                 ProcessCpuTime.Readings cpu) {
        List<Timeline.Machine> out = new ArrayList<>();
        for (long s = from; s < to; s += TimelineRecorder.SECOND_NANOS) {
            long e = Math.min(s + TimelineRecorder.SECOND_NANOS, to);
            out.add(new Timeline.Machine(cpu.cores(s, e), cpu.backgroundCores(s, e), steal.share(s, e),
                    steal.serverCpusShare(s, e), cpu.backgroundThreads(s, e)));
        }
        return out;
    }

    // Per-thread lists of per-window stats, regrouped as per-window lists of per-thread stats.
    private static List<Window> windows(List<Phase> phases, List<List<ThreadStats>> perThread,
                                        IntToDoubleFunction seconds,
                                        IntToDoubleFunction hostSteal,
                                        IntToDoubleFunction serverCores,
                                        IntToDoubleFunction serverBackgroundCores,
                                        int serverAllowedCpus,
                                        IntToDoubleFunction generatorCores, int generatorCpus,
                                        IntFunction<List<Timeline.Machine>> machineSeconds) {
        List<Window> out = new ArrayList<>();
        int w = 0;
        for (int p = 0; p < phases.size(); p++) {
            if (!phases.get(p).measured()) {
                continue;
            }
            List<ThreadStats> threads = new ArrayList<>();
            for (List<ThreadStats> t : perThread) {
                threads.add(t.get(w));
            }
            out.add(new Window(phases.get(p).name(), threads, seconds.applyAsDouble(p), hostSteal.applyAsDouble(p),
                    serverCores.applyAsDouble(p), serverBackgroundCores.applyAsDouble(p), serverAllowedCpus,
                    generatorCores.applyAsDouble(p), generatorCpus, machineSeconds.apply(p)));
            w++;
        }
        return out;
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

    private static <T> List<T> collect(List<Future<T>> results, long waitMillis) {
        List<T> stats = new ArrayList<>();
        for (Future<T> f : results) {
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

    /** How each connection of a generator thread is made: no Nagle, pooled buffers, reads of at least 2 KiB. */
    static Bootstrap connections(EventLoop loop, Class<? extends SocketChannel> channelClass,
                                 InetSocketAddress address, Duration timeout) {
        return new Bootstrap().group(loop).channel(channelClass)
                .remoteAddress(address)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.RCVBUF_ALLOCATOR, readBuffers())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, Math.max(1000, timeout.toMillis())));
    }

    /**
     * The floor the server's reads have (LarderServer), for the same reason. Netty's default read buffer shrinks to
     * 64 bytes during a phase of small answers (a PUT's 201), so the first GET answers of the next phase arrived split
     * over two reads. That took the parser's partial-line path, which C2 had compiled as a trap (its class not even
     * loaded): at the switch the generator's whole read path was thrown away and ran interpreted while C2 compiled it
     * again, and the generator's own lateness was measured as the server's latency in the first second of every first
     * GET phase (docs/performance.md, "Session 33"). A 2 KiB floor reads the answer of a GET of up to about 1.9 KiB
     * whole; larger values still grow it to 64 KiB.
     */
    static AdaptiveRecvByteBufAllocator readBuffers() {
        return new AdaptiveRecvByteBufAllocator(2048, 2048, 64 * 1024);
    }
}
