package dev.larder.server.metrics;

import dev.larder.server.config.RejectReason;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.http.Outcome;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The {@link ServerObserver} that records into Micrometer meters. Called from every event loop and worker for every
 * request, so each meter is looked up once and then cached: after warm-up a call is two map reads (strings whose hash
 * is already cached) and an array read, never a {@code register()} and never an allocation.
 */
public final class MicrometerObserver implements ServerObserver {

    /** Bucket range of every latency histogram: finer or coarser buckets cost series without telling more. */
    static final Duration HISTOGRAM_MIN = Duration.ofNanos(100_000);
    static final Duration HISTOGRAM_MAX = Duration.ofSeconds(10);
    /** Storage calls are often a few microseconds; their range starts lower. */
    static final Duration STORAGE_HISTOGRAM_MIN = Duration.ofNanos(10_000);

    static final String OTHER = "OTHER";
    // Request methods are client input: anything outside this set is tagged OTHER so a scanner cannot mint series.
    private static final Set<String> KNOWN_METHODS =
            Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT");
    private static final String[] STORAGE_OPERATIONS = {"get", "put", "delete", "range"};
    private static final int MIN_STATUS = 100;
    private static final int MAX_STATUS = 599;

    private final MeterRegistry registry;
    // route -> method -> status - MIN_STATUS -> timer
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, AtomicReferenceArray<Timer>>> requests =
            new ConcurrentHashMap<>();
    private final Timer queueWait;
    private final Timer serviceTime;
    private final DistributionSummary workerRun;
    private final Timer[] storageSuccess = new Timer[STORAGE_OPERATIONS.length];
    private final Timer[] storageFailure = new Timer[STORAGE_OPERATIONS.length];
    private final Counter[][] rejections = new Counter[RejectionMode.values().length][RejectReason.values().length];
    private final Counter connectionsOpened;
    private final Counter ranOnEventLoop;
    private final Counter missReadsOnLoop;
    private final Counter slowMissReadsOnLoop;

    public MicrometerObserver(MeterRegistry registry) {
        this.registry = registry;
        this.queueWait = latencyTimer("larder.queue.wait", HISTOGRAM_MIN)
                .description("Time a request waited between being accepted and a worker (or, inline, its event loop) "
                        + "starting it")
                .register(registry);
        this.missReadsOnLoop = Counter.builder("larder.loop.miss.reads")
                .description("GETs the block cache could not answer that the event loop read from a table file "
                        + "itself (--miss-reads) instead of handing them to a worker")
                .register(registry);
        this.slowMissReadsOnLoop = Counter.builder("larder.loop.miss.reads.slow")
                .description("Of those, reads slower than a page-cache read: 8 within a second send the next "
                        + "second's misses to the workers")
                .register(registry);
        this.serviceTime = latencyTimer("larder.service.time", HISTOGRAM_MIN)
                .description("Time a worker (or, inline, the event loop) spent on a request, from starting it to "
                        + "handing its response over")
                .register(registry);
        this.workerRun = DistributionSummary.builder("larder.worker.run.size")
                .description("Requests a worker took from its queue as one run (one MultiGet, one WriteBatch)")
                .baseUnit("requests")
                .serviceLevelObjectives(1, 2, 4, 8, 16)
                .register(registry);
        this.ranOnEventLoop = Counter.builder("larder.inline.requests")
                .description("Requests run on their event loop because their worker was idle, the loop's "
                        + "iteration read at most --inline-batch of them and the call needed no waiting")
                .register(registry);
        for (int i = 0; i < STORAGE_OPERATIONS.length; i++) {
            storageSuccess[i] = storageTimer(STORAGE_OPERATIONS[i], "success");
            storageFailure[i] = storageTimer(STORAGE_OPERATIONS[i], "failure");
        }
        // Registered up front so that rate() over a quiet server reads 0, not "no data".
        for (RejectionMode mode : RejectionMode.values()) {
            for (RejectReason reason : RejectReason.values()) {
                rejections[mode.ordinal()][reason.ordinal()] = Counter.builder("larder.rejections")
                        .description("Requests answered 503 without touching storage")
                        .tag("mode", mode.flag())
                        .tag("reason", reason.tag())
                        .register(registry);
            }
        }
        this.connectionsOpened = Counter.builder("larder.connections.opened")
                .description("Connections accepted on the data port (including those refused past --max-connections)")
                .register(registry);
    }

    @Override
    public void requestCompleted(String method, String route, int status, long latencyNanos) {
        requestTimer(method, route, status).record(latencyNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void queueWait(long nanos) {
        queueWait.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void workerRun(int tasks) {
        workerRun.record(tasks);
    }

    @Override
    public void ranOnEventLoop() {
        ranOnEventLoop.increment();
    }

    @Override
    public void missReadOnLoop(boolean slow) {
        missReadsOnLoop.increment();
        if (slow) {
            slowMissReadsOnLoop.increment();
        }
    }

    @Override
    public void serviceTime(long nanos) {
        serviceTime.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void storageCall(String operation, long nanos, boolean success) {
        int i = storageIndex(operation);
        Timer timer = i >= 0 ? (success ? storageSuccess[i] : storageFailure[i])
                : storageTimer(OTHER, success ? "success" : "failure");
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void rejected(RejectionMode mode, RejectReason reason) {
        rejections[mode.ordinal()][reason.ordinal()].increment();
    }

    @Override
    public void connectionOpened() {
        connectionsOpened.increment();
    }

    Timer requestTimer(String method, String route, int status) {
        ConcurrentHashMap<String, AtomicReferenceArray<Timer>> byMethod = requests.get(route);
        if (byMethod == null) {
            byMethod = requests.computeIfAbsent(route, r -> new ConcurrentHashMap<>());
        }
        AtomicReferenceArray<Timer> byStatus = byMethod.get(method);
        if (byStatus == null) {
            // Unknown methods share the OTHER slot, so their number of map entries is bounded too.
            String tag = KNOWN_METHODS.contains(method) ? method : OTHER;
            byStatus = tag.equals(method)
                    ? byMethod.computeIfAbsent(method, m -> new AtomicReferenceArray<>(MAX_STATUS - MIN_STATUS + 2))
                    : byMethod.computeIfAbsent(OTHER, m -> new AtomicReferenceArray<>(MAX_STATUS - MIN_STATUS + 2));
            method = tag;
        }
        int slot = status >= MIN_STATUS && status <= MAX_STATUS ? status - MIN_STATUS : MAX_STATUS - MIN_STATUS + 1;
        Timer timer = byStatus.get(slot);
        if (timer == null) {
            // register() returns the existing meter for the same id, so a race only costs a second lookup.
            timer = latencyTimer("http.server.requests", HISTOGRAM_MIN)
                    .description("HTTP requests on the data port, from the whole request read to its response "
                            + "handed to the connection")
                    .tag("method", method)
                    .tag("uri", route)
                    .tag("status", slot <= MAX_STATUS - MIN_STATUS ? Integer.toString(status) : "UNKNOWN")
                    .tag("outcome", Outcome.forStatus(status).name())
                    .register(registry);
            byStatus.set(slot, timer);
        }
        return timer;
    }

    private static int storageIndex(String operation) {
        for (int i = 0; i < STORAGE_OPERATIONS.length; i++) {
            // The request path passes these very literals, so identity usually answers before equals() runs.
            if (STORAGE_OPERATIONS[i] == operation || STORAGE_OPERATIONS[i].equals(operation)) {
                return i;
            }
        }
        return -1;
    }

    private Timer storageTimer(String operation, String result) {
        return latencyTimer("larder.storage.calls", STORAGE_HISTOGRAM_MIN)
                .description("Storage engine calls (a range call is one batch of a range stream)")
                .tag("operation", operation)
                .tag("result", result)
                .register(registry);
    }

    private static Timer.Builder latencyTimer(String name, Duration min) {
        return Timer.builder(name)
                .publishPercentileHistogram()
                .minimumExpectedValue(min)
                .maximumExpectedValue(HISTOGRAM_MAX);
    }
}
