package dev.larder.server.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Everything the data listener needs, validated once when built and passed down unchanged. Build with
 * {@link #builder(int)}; every field has the default the CLI documents.
 *
 * @param host               address to bind
 * @param port               data port; 0 picks a free one
 * @param ioThreads          event-loop threads (the selector role)
 * @param transport          socket transport
 * @param workers            storage worker threads; 0 runs storage calls on the event loop (synchronous mode)
 * @param queueSize          pending requests allowed per worker (Netty's minimum is 16)
 * @param rejection          what a full worker queue does
 * @param maxQueueDelay      requests that waited longer are answered 503 unprocessed; {@link Duration#ZERO} = off
 * @param maxValueSize       largest accepted request body, bytes (larger: 413)
 * @param maxRequestLine     longest request line, bytes (longer: 414)
 * @param maxHeaderSize      largest header block, bytes (larger: 431)
 * @param shutdownTimeout    how long queued and running requests may take to finish on shutdown
 * @param readTimeout        a request must arrive completely within this once it starts; {@link Duration#ZERO} = off
 * @param idleTimeout        keep-alive connections with no traffic, or whose client has not read its responses, are
 *                           closed after this; {@link Duration#ZERO} = off
 * @param maxConnections     connections beyond this are closed at accept
 * @param writeHighWaterMark outbound bytes queued on a connection above which it stops reading from it
 * @param rangeBatchBytes    bytes of range records gathered per write while streaming
 * @param limitAlgorithm     what learns the concurrency limit of {@code --rejection adaptive} (unused otherwise)
 * @param inlineBatch        a worker's share of one event-loop iteration, up to this many storage requests, runs
 *                           on the loop itself when that worker is idle, as far as it cannot block (like writes as
 *                           one batch); 0 = always hand over
 * @param foregroundSlice    the EEVDF time slice the event loops and the workers set on themselves (Linux 6.12+);
 *                           {@link Duration#ZERO} = the kernel's
 * @param foregroundPolicy   the scheduling policy the event loops and the workers run under: fair ({@code SCHED_OTHER})
 *                           or {@code SCHED_FIFO} at priority 1, which takes the core from fair threads at wake-up
 * @param ioCoalesce         how long an event loop with nothing left to do waits before it blocks for I/O, so that
 *                           one wake-up serves what arrives meanwhile (only under moderate load);
 *                           {@link Duration#ZERO} = block at once
 * @param ioCoalesceWait     whether an event loop sleeps or spins through that wait
 * @param rescheduleInterval while the store's background threads are at work, a thread of the server wakes this often
 *                           on the core it shares with them, so the scheduler decides again who runs there before
 *                           the kernel's next tick; {@link Duration#ZERO} = never
 * @param rescheduleNice     the nice value that thread runs at (0-19, never below the server's own): at 19 it still
 *                           preempts the background threads (nice 19 too) but no longer a busy event loop
 * @param missReads          where a GET the block cache cannot answer is read, in the async mode: on the event loop
 *                           or by a worker ({@link MissReads#AUTO}: on the loop when the workers have no CPU of
 *                           their own)
 * @param timeoutCheckPeriod how often each connection's read and idle timeouts are checked; {@link Duration#ZERO} =
 *                           a quarter of the shorter timeout, between 10 ms and 1 s. Not a flag: the JIT warm-up
 *                           sets 1 ms so that the check and Netty's timer code are compiled before serving
 */
public record ServerOptions(
        String host,
        int port,
        int ioThreads,
        TransportKind transport,
        int workers,
        int queueSize,
        RejectionMode rejection,
        Duration maxQueueDelay,
        int maxValueSize,
        int maxRequestLine,
        int maxHeaderSize,
        Duration shutdownTimeout,
        Duration readTimeout,
        Duration idleTimeout,
        int maxConnections,
        int writeHighWaterMark,
        int rangeBatchBytes,
        LimitAlgorithm limitAlgorithm,
        int inlineBatch,
        Duration foregroundSlice,
        ForegroundPolicy foregroundPolicy,
        Duration ioCoalesce,
        CoalesceWait ioCoalesceWait,
        Duration rescheduleInterval,
        int rescheduleNice,
        MissReads missReads,
        Duration timeoutCheckPeriod) {

    /** Netty's {@code SingleThreadEventExecutor} never bounds a queue below this. */
    public static final int MIN_QUEUE_SIZE = 16;
    /**
     * {@code --inline-batch}'s default: a worker's share of an iteration of up to 64 calls may run on the loop when that
     * worker is idle (only calls that cannot block: memory reads, writes no stall holds back), so the loop does what
     * the sync mode does without its waits (on since session 26, at 16). 64 rather than a worker's run of 16: after
     * any pause of the loop (a collection, a compilation, a background thread's slice) a fixed-rate load's next
     * iteration reads a request from most connections; at 16 the shares past 16 went to the workers, which then
     * competed with the loop for the one core and took every share while busy, so one pause became a stretch of
     * seconds at p99 11-38 ms with the workers running 29-47k requests a second. At 64 the burst stays on the loop (a
     * write batch, a run of memory reads): in fixed-rate probes at the same rates the workers ran none, and 1 and 12
     * seconds were above 10 ms against 11 and 18 (docs/performance.md, "Session 30"). Not measured on more cores, where
     * workers on other cores would take such a burst in parallel.
     */
    public static final int DEFAULT_INLINE_BATCH = 64;
    /** The slices the kernel takes (it clamps others to these). */
    public static final Duration MIN_SLICE = Duration.ofNanos(100_000);
    public static final Duration MAX_SLICE = Duration.ofMillis(100);
    /** {@code --foreground-slice}'s default. */
    public static final Duration DEFAULT_FOREGROUND_SLICE = Duration.ZERO;
    /**
     * {@code --foreground-policy}'s default: fair. At the tail benchmark's fixed rates SCHED_FIFO held 11 of 15 phases
     * under 10 ms in three rounds, as the default did in the three alternated with them (docs/performance.md, "Session
     * 60"); and a real-time default would ask a privilege most deployments do not grant.
     */
    public static final ForegroundPolicy DEFAULT_FOREGROUND_POLICY = ForegroundPolicy.FAIR;
    /** {@code --io-coalesce}'s bounds: below 10 us a sleep costs more than it saves; above 5 ms it is the tail. */
    public static final Duration MIN_IO_COALESCE = Duration.ofNanos(10_000);
    public static final Duration MAX_IO_COALESCE = Duration.ofMillis(5);
    /**
     * {@code --io-coalesce}'s default: off. At 40k GET/s 200 us took 0.78-0.86x the CPU per request, for p50 +0.4 ms,
     * but p99 at the tail benchmark's rates was no better (docs/performance.md, "Session 23").
     */
    public static final Duration DEFAULT_IO_COALESCE = Duration.ZERO;
    /**
     * {@code --io-coalesce-wait}'s default: park. Spinning made a request at 60k GET/s on a quiet store cost about what
     * it costs at saturation, p99 6.4-29.9 ms against the default's 25-287 ms (four runs each; docs/performance.md,
     * "Session 90"); sharing the waiting time with the background held 19 of 35 of the tail benchmark's phases
     * against the default's 18 of 35 in seven alternated pairs ("Session 91"), no gain the noise lets one see, and
     * the spin fills the core's idle time, which a server that shares its cores must not take by default.
     */
    public static final CoalesceWait DEFAULT_IO_COALESCE_WAIT = CoalesceWait.PARK;
    /**
     * {@code --reschedule-interval}'s bounds: a wake-up costs the core a few microseconds, so below 100 us it costs
     * more than the holds it cuts; at 4 ms and more it is the kernel's tick (250 Hz) again.
     */
    public static final Duration MIN_RESCHEDULE_INTERVAL = Duration.ofNanos(100_000);
    public static final Duration MAX_RESCHEDULE_INTERVAL = Duration.ofMillis(4);
    /**
     * {@code --reschedule-interval}'s default: 500 us. At the tail benchmark's fixed rates (the core 0.95 busy) the
     * median second's p99 fell from about 3 ms to 2 ms with no more CPU per request; a 250 us external ticker's
     * wake-ups (3,300 a second, never idle) pushed the full core over the edge (docs/performance.md, "Session 55").
     */
    public static final Duration DEFAULT_RESCHEDULE_INTERVAL = Duration.ofNanos(500_000);
    /**
     * {@code --reschedule-nice}'s default: 19. At nice 0 the rescheduler's short slice preempted a busy event loop too,
     * about 5% of a saturated PUT's CPU; at 19 it still preempts the nice-19 background threads, and over 9 rounds of
     * the phase run held 43 of 45 phases under 10 ms against 34 of 45 (docs/performance.md, "Session 57").
     */
    public static final int DEFAULT_RESCHEDULE_NICE = 19;
    /**
     * {@code --miss-reads}' default: {@link MissReads#AUTO}. With the workers on the loop's one CPU, every GET that
     * missed the block cache after a write phase cost a hand-off (two context switches and a wake-up each way on the
     * same core) on top of its read from the page cache: at the switch from PUT to GET at 80k/s the workers ran
     * 3,500-6,400 times a second for 120-220 ms of the core, the loop waited for them 160-240 ms a second, and the
     * GET breakdown point was 0.93x the sync mode's (docs/performance.md, "Session 59").
     */
    public static final MissReads DEFAULT_MISS_READS = MissReads.AUTO;
    /**
     * A read of a table file that took longer than this on the loop came from a device, not the page cache (a 4 KiB
     * block from memory, decompressed, takes 5-20 us here; a read from an SSD 80 us and more, waits behind the
     * background's slices included): {@link MissReads#LOOP} hands misses to the workers for
     * {@link #MISS_READ_BACKOFF} once several such reads came within one.
     */
    public static final Duration MISS_READ_BOUND = Duration.ofNanos(500_000);
    public static final Duration MISS_READ_BACKOFF = Duration.ofSeconds(1);

    public ServerOptions {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(rejection, "rejection");
        Objects.requireNonNull(maxQueueDelay, "maxQueueDelay");
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        Objects.requireNonNull(readTimeout, "readTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(limitAlgorithm, "limitAlgorithm");
        Objects.requireNonNull(foregroundSlice, "foregroundSlice");
        Objects.requireNonNull(foregroundPolicy, "foregroundPolicy");
        Objects.requireNonNull(ioCoalesce, "ioCoalesce");
        Objects.requireNonNull(ioCoalesceWait, "ioCoalesceWait");
        Objects.requireNonNull(rescheduleInterval, "rescheduleInterval");
        Objects.requireNonNull(timeoutCheckPeriod, "timeoutCheckPeriod");
        Objects.requireNonNull(missReads, "missReads");
        check(port >= 0 && port <= 65535, "port", port, "0..65535");
        check(ioThreads > 0, "io-threads", ioThreads, "> 0");
        check(workers >= 0, "workers", workers, ">= 0");
        check(queueSize >= MIN_QUEUE_SIZE, "queue-size", queueSize, ">= " + MIN_QUEUE_SIZE);
        check(!maxQueueDelay.isNegative(), "max-queue-delay", maxQueueDelay, ">= 0");
        check(maxValueSize >= 0, "max-value-size", maxValueSize, ">= 0");
        check(maxRequestLine >= 64, "max-request-line", maxRequestLine, ">= 64");
        check(maxHeaderSize >= 256, "max-header-size", maxHeaderSize, ">= 256");
        check(!shutdownTimeout.isNegative(), "shutdown-timeout", shutdownTimeout, ">= 0");
        check(!readTimeout.isNegative(), "read-timeout", readTimeout, ">= 0");
        check(!idleTimeout.isNegative(), "idle-timeout", idleTimeout, ">= 0");
        check(maxConnections > 0, "max-connections", maxConnections, "> 0");
        check(writeHighWaterMark >= 1024, "write-high-water-mark", writeHighWaterMark, ">= 1024");
        check(rangeBatchBytes > 0, "range-batch-bytes", rangeBatchBytes, "> 0");
        check(inlineBatch >= 0, "inline-batch", inlineBatch, ">= 0");
        check(offOrBetween(foregroundSlice, MIN_SLICE, MAX_SLICE), "foreground-slice", foregroundSlice,
                "off, or 100us to 100ms");
        // A SCHED_FIFO thread has no slice: it runs until it blocks or a higher priority wakes.
        check(foregroundPolicy == ForegroundPolicy.FAIR || foregroundSlice.isZero(), "foreground-slice",
                foregroundSlice, "off with --foreground-policy fifo");
        check(offOrBetween(ioCoalesce, MIN_IO_COALESCE, MAX_IO_COALESCE), "io-coalesce", ioCoalesce,
                "off, or 10us to 5ms");
        // Spinning needs a window to spin through; without one the flag would silently do nothing.
        check(ioCoalesceWait == CoalesceWait.PARK || !ioCoalesce.isZero(), "io-coalesce-wait", ioCoalesceWait.flag(),
                "park while --io-coalesce is off (spin through a window: --io-coalesce 200us)");
        check(offOrBetween(rescheduleInterval, MIN_RESCHEDULE_INTERVAL, MAX_RESCHEDULE_INTERVAL),
                "reschedule-interval", rescheduleInterval, "off, or 100us to 4ms");
        check(rescheduleNice >= 0 && rescheduleNice <= 19, "reschedule-nice", rescheduleNice, "0..19");
        check(!timeoutCheckPeriod.isNegative(), "timeout-check-period", timeoutCheckPeriod, ">= 0");
        check(rejection != RejectionMode.ADAPTIVE || workers > 0, "rejection", rejection.flag(),
                "not adaptive with --workers 0: there are no workers to limit");
    }

    /** Zero (the flag's {@code off}) or within {@code [min, max]}. */
    private static boolean offOrBetween(Duration value, Duration min, Duration max) {
        return value.isZero() || value.compareTo(min) >= 0 && value.compareTo(max) <= 0;
    }

    private static void check(boolean ok, String name, Object value, String expected) {
        if (!ok) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: " + expected + ")");
        }
    }

    /** A builder holding the documented defaults for a machine with {@code cores} cores. */
    public static Builder builder(int cores) {
        return new Builder(cores);
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder(1);
        b.host = host;
        b.port = port;
        b.ioThreads = ioThreads;
        b.transport = transport;
        b.workers = workers;
        b.queueSize = queueSize;
        b.rejection = rejection;
        b.maxQueueDelay = maxQueueDelay;
        b.maxValueSize = maxValueSize;
        b.maxRequestLine = maxRequestLine;
        b.maxHeaderSize = maxHeaderSize;
        b.shutdownTimeout = shutdownTimeout;
        b.readTimeout = readTimeout;
        b.idleTimeout = idleTimeout;
        b.maxConnections = maxConnections;
        b.writeHighWaterMark = writeHighWaterMark;
        b.rangeBatchBytes = rangeBatchBytes;
        b.limitAlgorithm = limitAlgorithm;
        b.inlineBatch = inlineBatch;
        b.foregroundSlice = foregroundSlice;
        b.foregroundPolicy = foregroundPolicy;
        b.ioCoalesce = ioCoalesce;
        b.ioCoalesceWait = ioCoalesceWait;
        b.rescheduleInterval = rescheduleInterval;
        b.rescheduleNice = rescheduleNice;
        b.missReads = missReads;
        b.timeoutCheckPeriod = timeoutCheckPeriod;
        return b;
    }

    /** Total pending requests the worker pool can hold. */
    public long queueCapacity() {
        return (long) workers * queueSize;
    }

    /** Whether the event loops and the workers run in {@code SCHED_FIFO} ({@code --foreground-policy fifo}). */
    public boolean fifoForeground() {
        return foregroundPolicy == ForegroundPolicy.FIFO;
    }

    /** Whether storage calls run on the event loop. */
    public boolean synchronous() {
        return workers == 0;
    }

    /** Mutable staging for {@link ServerOptions}; {@link #build()} validates. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = 8080;
        private int ioThreads;
        private TransportKind transport = TransportKind.AUTO;
        private int workers;
        private int queueSize = 128;
        private RejectionMode rejection = RejectionMode.ABORT;
        private Duration maxQueueDelay = Duration.ZERO;
        private int maxValueSize = 16 << 20;
        private int maxRequestLine = 8192;
        private int maxHeaderSize = 16384;
        private Duration shutdownTimeout = Duration.ofSeconds(10);
        private Duration readTimeout = Duration.ofSeconds(30);
        private Duration idleTimeout = Duration.ofSeconds(120);
        private int maxConnections = 10_000;
        private int writeHighWaterMark = 1 << 20;
        private int rangeBatchBytes = 64 * 1024;
        private LimitAlgorithm limitAlgorithm = LimitAlgorithm.VEGAS;
        private int inlineBatch = DEFAULT_INLINE_BATCH;
        private Duration foregroundSlice = DEFAULT_FOREGROUND_SLICE;
        private ForegroundPolicy foregroundPolicy = DEFAULT_FOREGROUND_POLICY;
        private Duration ioCoalesce = DEFAULT_IO_COALESCE;
        private CoalesceWait ioCoalesceWait = DEFAULT_IO_COALESCE_WAIT;
        private Duration rescheduleInterval = DEFAULT_RESCHEDULE_INTERVAL;
        private int rescheduleNice = DEFAULT_RESCHEDULE_NICE;
        private MissReads missReads = DEFAULT_MISS_READS;
        private Duration timeoutCheckPeriod = Duration.ZERO;

        private Builder(int cores) {
            ioThreads = cores;
            workers = 2 * cores;
        }

        public Builder host(String v) { host = v; return this; }
        public Builder port(int v) { port = v; return this; }
        public Builder ioThreads(int v) { ioThreads = v; return this; }
        public Builder transport(TransportKind v) { transport = v; return this; }
        public Builder workers(int v) { workers = v; return this; }
        public Builder queueSize(int v) { queueSize = v; return this; }
        public Builder rejection(RejectionMode v) { rejection = v; return this; }
        public Builder maxQueueDelay(Duration v) { maxQueueDelay = v; return this; }
        public Builder maxValueSize(int v) { maxValueSize = v; return this; }
        public Builder maxRequestLine(int v) { maxRequestLine = v; return this; }
        public Builder maxHeaderSize(int v) { maxHeaderSize = v; return this; }
        public Builder shutdownTimeout(Duration v) { shutdownTimeout = v; return this; }
        public Builder readTimeout(Duration v) { readTimeout = v; return this; }
        public Builder idleTimeout(Duration v) { idleTimeout = v; return this; }
        public Builder maxConnections(int v) { maxConnections = v; return this; }
        public Builder writeHighWaterMark(int v) { writeHighWaterMark = v; return this; }
        public Builder rangeBatchBytes(int v) { rangeBatchBytes = v; return this; }
        public Builder limitAlgorithm(LimitAlgorithm v) { limitAlgorithm = v; return this; }
        public Builder inlineBatch(int v) { inlineBatch = v; return this; }
        public Builder foregroundSlice(Duration v) { foregroundSlice = v; return this; }
        public Builder foregroundPolicy(ForegroundPolicy v) { foregroundPolicy = v; return this; }
        public Builder ioCoalesce(Duration v) { ioCoalesce = v; return this; }
        public Builder ioCoalesceWait(CoalesceWait v) { ioCoalesceWait = v; return this; }
        public Builder rescheduleInterval(Duration v) { rescheduleInterval = v; return this; }
        public Builder rescheduleNice(int v) { rescheduleNice = v; return this; }
        public Builder missReads(MissReads v) { missReads = v; return this; }
        public Builder timeoutCheckPeriod(Duration v) { timeoutCheckPeriod = v; return this; }

        public ServerOptions build() {
            return new ServerOptions(host, port, ioThreads, transport, workers, queueSize, rejection, maxQueueDelay,
                    maxValueSize, maxRequestLine, maxHeaderSize, shutdownTimeout, readTimeout, idleTimeout,
                    maxConnections, writeHighWaterMark, rangeBatchBytes, limitAlgorithm, inlineBatch,
                    foregroundSlice, foregroundPolicy, ioCoalesce, ioCoalesceWait, rescheduleInterval, rescheduleNice, missReads,
                    timeoutCheckPeriod);
        }
    }
}
