package dev.larder.cli;

import dev.larder.server.LarderServer;
import dev.larder.server.PipelineWarmup;
import dev.larder.server.admin.AdminEndpoint;
import dev.larder.server.admin.AdminOptions;
import dev.larder.server.admin.AdminServer;
import dev.larder.server.admin.ReadyEndpoint;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.metrics.CoarseClock;
import dev.larder.server.metrics.LarderMeters;
import dev.larder.storage.RocksDbStore;
import dev.larder.storage.StoreOptions;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Compiles the request paths before the real listener opens: a throwaway server, built from the same options on a
 * loopback port, over a throwaway store in a temporary directory, answers {@link PipelineWarmup}'s requests. The
 * JIT's compiled code is shared by every instance of a class, so the real server starts with it, while its data,
 * its metrics and its port never see a warm-up request.
 *
 * <p>A throwaway admin listener with the real one's endpoints is warmed alongside. Both listeners run on Netty's
 * shared classes (the channel contexts, the read allocator handle, the write path, the header encoder), so a warm-up
 * of the data listener alone compiled those with a profile that had never seen the admin pipeline, and the first
 * health probe or scrape after start threw them away: the data path then ran interpreted while C2 recompiled it,
 * 30-45% of the core for about 10 s of the first load (docs/performance.md, session 12).
 */
final class JitWarmup {

    /** How much faster the throwaway registry's wall clock runs than real time. */
    static final long WALL_CLOCK_SPEED = 64;

    /**
     * The timer soak at the end of the warm-up: this many idle connections, each with its timeout check every
     * {@link #TIMER_SOAK_PERIOD}, held until the JIT has been quiet for {@link #JIT_QUIET} (at least
     * {@link #TIMER_SOAK_MIN}, at most {@link #TIMER_SOAK_MAX}, or its share of it for a short warm-up: see
     * {@link #soakMax}). At the real period (a second per connection) the check
     * and Netty's timer code (the scheduled task's run, its priority queue) crossed C2's thresholds minutes into a
     * load, and their compilations landed in the tail benchmark's phases, one of them at the first PUT to GET switch
     * in every round (docs/performance.md, "Session 38"). Waiting for quiet matters: C2's thresholds grow with its
     * queue, which the warm-up leaves long, so in a fixed second the smaller of those methods were not compiled yet.
     * The warm-up's own connections keep the real period: checked every millisecond through the whole warm-up, they
     * made it 22.5-27.8 s long on one core against 18.5-21.9 s, since most of those checks found the loop asleep.
     */
    static final int TIMER_SOAK_CONNECTIONS = 64;
    static final Duration TIMER_SOAK_PERIOD = Duration.ofMillis(1);
    static final Duration TIMER_SOAK_MIN = Duration.ofSeconds(1);
    static final Duration TIMER_SOAK_MAX = Duration.ofSeconds(6);
    static final Duration JIT_QUIET = Duration.ofMillis(500);

    /**
     * The warm-up listeners' connection limit when {@code --max-connections} is lower: the request rounds and the soak
     * open up to 64 connections, and under a lower limit their first request was answered 503, so the server started
     * with no warm-up at all (it logs the failure and goes on).
     */
    static final int WARMUP_MAX_CONNECTIONS = 256;

    /**
     * The worker's path, from taking a run to handing its answers back, as the methods C2 compiles it in: each of these
     * is called from compiled code that does not inline it (the batched write does get inlined, and its own code is
     * then never called often enough to be compiled, so it is not waited for). The hand-over pass ends with rounds of
     * like calls ({@link PipelineWarmup#runInStep}) until each of these has top-tier code and C2 has had nothing to do
     * for {@link #IDLE_PASSES} passes of them in a row, for at most {@link #WORKER_PATH_MAX}. Counting requests was not
     * enough: after 30,000 of them handed over, {@code runOnce} was still C1 code, because C2's thresholds grow with
     * its queue, and C2 compiled the path at the first burst of cold reads of a load, which in some runs was a measured
     * phase: 22-36 compiler ticks in its first two seconds, at p99 268-696 ms (docs/performance.md, "Session 41" and
     * "Session 42").
     */
    static final List<String> WORKER_PATH = List.of(
            "dev.larder.server.offload.Worker.runOnce",
            "dev.larder.server.offload.Worker.flush",
            "dev.larder.server.offload.CompletionBatch.flush",
            "dev.larder.server.entity.EntityCall.readAll");
    static final Duration WORKER_PATH_MAX = Duration.ofSeconds(10);
    /** {@code --warmup-requests}' default: a warm-up of this many requests or more waits the whole limit. */
    static final long FULL_REQUESTS = 60_000;
    /** Twice a worker's longest run ({@code Worker.MAX_BATCH}): a round is one full run of each of two workers. */
    static final int IN_STEP_CONNECTIONS = 32;
    /** About a tenth of a second on one core of this machine. */
    private static final int IN_STEP_ROUNDS = 50;
    static final int IDLE_PASSES = 3;

    /**
     * What a warm-up did: how long it took, how many requests it sent in rounds of like calls for the worker's path,
     * which of {@link #WORKER_PATH} C2 had not compiled when it gave up (empty when all were, or none asked), and how
     * many times it scraped its metrics through the timer soak (0 without metrics).
     */
    record Report(Duration took, long inStepRequests, Set<String> notCompiled, long soakScrapes) {
    }

    private JitWarmup() {
    }

    /**
     * Runs the warm-up and says what it did. A warm-up asked for fewer than {@link #FULL_REQUESTS} requests (tests
     * start servers with 2,000) sends the rounds for the worker's path for a share of {@link #WORKER_PATH_MAX} in
     * proportion.
     */
    static Report run(ServerOptions options, StoreOptions storeOptions, boolean metrics, long requests,
                      Duration clockResolution) {
        return run(options, storeOptions, metrics, requests, clockResolution, CompiledCode.ofThisJvm(),
                shareOf(WORKER_PATH_MAX, requests));
    }

    /** {@code limit} in proportion to {@code requests} of {@link #FULL_REQUESTS}, all of it from there on. */
    private static Duration shareOf(Duration limit, long requests) {
        return limit.multipliedBy(Math.min(requests, FULL_REQUESTS)).dividedBy(FULL_REQUESTS);
    }

    /**
     * The timer soak's limit: {@link #TIMER_SOAK_MAX} for a full warm-up, its share for a shorter one, never under
     * {@link #TIMER_SOAK_MIN}. A short warm-up leaves C2 a queue that does not run down in seconds, so its soak always
     * waited the whole limit: of the 9.5-9.9 s a test's server took to start with 2,000 requests, about 6 s
     * (docs/performance.md, "Session 82").
     */
    static Duration soakMax(long requests) {
        Duration share = shareOf(TIMER_SOAK_MAX, requests);
        return share.compareTo(TIMER_SOAK_MIN) < 0 ? TIMER_SOAK_MIN : share;
    }

    /**
     * {@code code}: what C2 has compiled so far, asked after each pass of rounds of like calls; {@code gateMax}: how
     * long to send them at most.
     */
    static Report run(ServerOptions options, StoreOptions storeOptions, boolean metrics, long requests,
                      Duration clockResolution, CompiledCode code, Duration gateMax) {
        long start = System.nanoTime();
        WorkerPathGate gate = new WorkerPathGate(code, gateMax);
        Duration soakMax = soakMax(requests);
        long soakScrapes = 0;
        Path dir;
        try {
            dir = Files.createTempDirectory("larder-warmup");
        } catch (IOException e) {
            throw new UncheckedIOException("warm-up: cannot create a temporary directory", e);
        }
        try {
            ServerOptions loopback = options.toBuilder().host("127.0.0.1").port(0)
                    .maxConnections(Math.max(options.maxConnections(), WARMUP_MAX_CONNECTIONS)).build();
            List<ServerOptions> paths = requestPaths(loopback);
            long share = (requests + paths.size() - 1) / paths.size();
            for (int i = 0; i < paths.size(); i++) {
                soakScrapes += warm(paths.get(i), storeOptions, dir.resolve("store-" + i), metrics, share,
                        clockResolution, i == paths.size() - 1, gate, soakMax);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("warm-up: " + e.getMessage(), e);
        } finally {
            deleteTree(dir);
        }
        return new Report(Duration.ofNanos(System.nanoTime() - start), gate.sent, gate.missing, soakScrapes);
    }

    /** Sends rounds of like calls to a server that hands every request over until the worker's path is compiled. */
    private static final class WorkerPathGate {
        private final CompiledCode code;
        private final Duration max;
        private long sent;
        private Set<String> missing = Set.of();

        WorkerPathGate(CompiledCode code, Duration max) {
            this.code = code;
            this.max = max;
        }

        void await(PipelineWarmup warmup) throws IOException {
            long deadline = System.nanoTime() + max.toNanos();
            int idlePasses = 0;
            do {
                sent += warmup.runInStep(IN_STEP_CONNECTIONS, IN_STEP_ROUNDS);
                missing = code.notAtTopTier(WORKER_PATH);
                idlePasses = missing.isEmpty() && code.topTierIdle() ? idlePasses + 1 : 0;
            } while ((!missing.isEmpty() || idlePasses < IDLE_PASSES) && System.nanoTime() < deadline);
        }
    }

    /**
     * The servers to warm, one after the other. With {@code --inline-batch} a warm-up's requests all find their
     * worker idle and their keys in memory, so they would all run on the event loop, and the worker's own path (its
     * runs, RocksDB's MultiGet and write batch, the answers' hand-back) would first be compiled when a cold read or
     * a write stall needs it, in the middle of a load: so half the warm-up hands every request over. That half comes
     * second, so that its server is the one still open when the timer soak has let C2's queue run down, for the
     * rounds of like calls that end the warm-up ({@link #WORKER_PATH}).
     */
    static List<ServerOptions> requestPaths(ServerOptions options) {
        if (options.synchronous() || options.inlineBatch() == 0) {
            return List.of(options);
        }
        return List.of(options, options.toBuilder().inlineBatch(0).build());
    }

    /**
     * One server of {@link #requestPaths}; {@code lastPass}: the last of them, which ends the warm-up with the timer
     * soak and, when it hands every request over, the rounds for the worker's path. Returns how many times the soak
     * scraped the metrics.
     */
    private static long warm(ServerOptions loopback, StoreOptions storeOptions, Path dir, boolean metrics,
                             long requests, Duration clockResolution, boolean lastPass, WorkerPathGate gate,
                             Duration soakMax) throws IOException {
        StoreOptions scratch = new StoreOptions(dir, 8L << 20, storeOptions.rowCacheBytes() > 0 ? 4L << 20 : 0,
                storeOptions.syncWrites(), storeOptions.statistics(), storeOptions.yieldingBackground(),
                StoreOptions.DEFAULT_WRITE_BUFFER_BYTES, storeOptions.tableWarming(), StoreOptions.DEFAULT_MEMTABLES,
                storeOptions.blockCacheType(), storeOptions.blockSizeBytes());
        // Windows rotate every 20 s of wall time (a third of the registry's step): at this speed, every 0.3 s of
        // the warm-up, so the rotation is compiled as a branch taken.
        CoarseClock clock = metrics ? CoarseClock.fastForward(clockResolution, WALL_CLOCK_SPEED) : null;
        PrometheusMeterRegistry registry = metrics
                ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(), clock) : null;
        LarderMeters meters = registry != null ? new LarderMeters(registry, clock) : null;
        ServerObserver observer = meters != null ? meters.observer() : ServerObserver.NOOP;
        long soakScrapes = 0;
        try (RocksDbStore store = RocksDbStore.open(scratch);
             LarderServer server = LarderServer.start(loopback, store, observer)) {
            if (meters != null) {
                meters.bindServer(server);
                meters.bindStore(store.stats());
            }
            ReadyEndpoint ready = new ReadyEndpoint(List.of(
                    () -> server.ready() ? Optional.empty() : Optional.of("warm-up listener not serving")));
            Map<String, AdminEndpoint> endpoints = ServeCommand.adminEndpoints(registry, ready, null);
            AdminServer admin = AdminServer.start(new AdminOptions("127.0.0.1", 0), server.transport(), endpoints);
            try {
                PipelineWarmup warmup = new PipelineWarmup(server.localAddress(), admin.localAddress(),
                        new ArrayList<>(endpoints.keySet()));
                warmup.run(requests);
                if (lastPass) {
                    // Its own listener, so that only the soak's connections are checked that often.
                    ServerOptions soakOptions = loopback.toBuilder().timeoutCheckPeriod(TIMER_SOAK_PERIOD).build();
                    long[] scrapes = {0};
                    try (LarderServer soak = LarderServer.start(soakOptions, store, observer)) {
                        new PipelineWarmup(soak.localAddress()).holdConnections(TIMER_SOAK_CONNECTIONS,
                                () -> scrapes[0] = soakUntilQuiet(warmup, registry != null, soakMax));
                    }
                    soakScrapes = scrapes[0];
                }
            } finally {
                admin.close();
            }
            if (lastPass && !loopback.synchronous() && loopback.inlineBatch() == 0) {
                // Last, once the soak has let C2's queue run down: C2's thresholds grow with its queue (about 15
                // long through the request rounds), so before that even 3,000 runs of 16 did not get runOnce there.
                gate.await(new PipelineWarmup(server.localAddress()));
            }
        } finally {
            if (meters != null) {
                meters.close();
            }
        }
        return soakScrapes;
    }

    /**
     * Waits for the JIT to go quiet, with the warm-up's metrics scraped back to back meanwhile when there are any: the
     * soak then ends once the scrape is compiled too. The request rounds ask for it once in three rounds, a few dozen
     * times in all, and the real server's first scrapes then set C2 to work on the core the data path runs on: 5-57 ms
     * of compiling per scrape over the first ten scrapes of an idle server, 20-36 ms for the first under load. At each
     * phase boundary of {@code bench tail}, which scrapes there, that put 7-227 ms into the first second of the phase
     * at 75% of capacity (docs/performance.md, "Sessions 74-75"). Returns how many times it scraped.
     */
    private static long soakUntilQuiet(PipelineWarmup warmup, boolean metrics, Duration soakMax) {
        if (!metrics) {
            JitQuiet.await(TIMER_SOAK_MIN, JIT_QUIET, soakMax);
            return 0;
        }
        try {
            return warmup.askAdminRepeatedly(ServeCommand.METRICS_PATH,
                    scrape -> JitQuiet.await(TIMER_SOAK_MIN, JIT_QUIET, soakMax, scrape));
        } catch (IOException e) {
            throw new UncheckedIOException("warm-up: scraping the warm-up's metrics: " + e.getMessage(), e);
        }
    }

    /**
     * Deletes the warm-up's stores with a file visitor, not {@code Files.walk(...).sorted()}: that was the JVM's first
     * sorted stream, and loading its classes (a new subclass of the stream pipeline) threw away the C2 code of every
     * method that had inlined the pipeline as it was, the scrape's among them, so that C2 compiled the scrape again at
     * the real server's first scrapes (docs/performance.md, "Sessions 74-75").
     */
    private static void deleteTree(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // A leftover temporary directory is not worth failing the start over.
        }
    }
}
