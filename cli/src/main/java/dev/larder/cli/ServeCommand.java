package dev.larder.cli;

import dev.larder.bench.UncommonTraps;
import dev.larder.server.LarderServer;
import dev.larder.server.admin.AdminEndpoint;
import dev.larder.server.admin.AdminOptions;
import dev.larder.server.admin.AdminServer;
import dev.larder.server.admin.AsyncProfilerLoader;
import dev.larder.server.admin.HealthCheck;
import dev.larder.server.admin.LiveEndpoint;
import dev.larder.server.admin.MetricsEndpoint;
import dev.larder.server.admin.ProfileEndpoint;
import dev.larder.server.admin.ReadyEndpoint;
import dev.larder.server.config.ForegroundPolicy;
import dev.larder.server.config.LimitAlgorithm;
import dev.larder.server.config.CoalesceWait;
import dev.larder.server.config.MissReads;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.config.TransportKind;
import dev.larder.server.metrics.CoarseClock;
import dev.larder.server.metrics.LarderMeters;
import dev.larder.server.security.Exposure;
import dev.larder.server.security.SecurityOptions;
import dev.larder.server.security.SecurityReloader;
import dev.larder.server.security.ServerSecurity;
import dev.larder.server.threads.ThreadNice;
import dev.larder.storage.BlockCacheType;
import dev.larder.storage.RocksDbStore;
import dev.larder.storage.StoreException;
import dev.larder.storage.StoreOptions;
import dev.larder.storage.TableWarming;
import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code larder serve}: runs the HTTP server until SIGTERM or SIGINT. */
@Command(name = "serve", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {"Serves the /v0 API from RocksDB.",
                "Every option can also be set with an environment variable LARDER_<OPTION> (for example "
                        + "LARDER_PORT=9090, LARDER_QUEUE_SIZE=256); a flag wins over the variable."},
        footer = {"", "Durability: by default a write is acknowledged once it is in RocksDB's write-ahead log, which "
                + "survives a crash of the process but not of the machine. With --sync the log is fsynced before "
                + "the acknowledgement (concurrent writers share one fsync)."})
public final class ServeCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger("larder");
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    // The metrics' windows rotate every 20 s, so a wall time 100 ms stale changes nothing. At 10 ms the clock's
    // thread woke 100 times a second on the event loop's core and took 0.7% of it at the tail benchmark's rates
    // (68 us a wake-up on this VM; docs/performance.md, "Session 37").
    private static final Duration METRICS_CLOCK_RESOLUTION = Duration.ofMillis(100);
    // The warm-up took 0.4-0.5 s here; ten times that on a slow disk or a busy host, and the start goes on without
    // waiting (the warm-up then finishes on the profiler's thread, ahead of any profile asked for).
    private static final Duration PROFILER_WARM_UP_TIMEOUT = Duration.ofSeconds(5);

    @Spec
    CommandSpec spec;

    @Option(names = "--host", defaultValue = "${env:LARDER_HOST:-127.0.0.1}",
            description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for all interfaces).")
    String host;

    @Option(names = "--port", defaultValue = "${env:LARDER_PORT:-8080}",
            description = "Data port (default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int port;

    @Option(names = "--data-dir", defaultValue = "${env:LARDER_DATA_DIR:-./data}",
            description = "RocksDB directory, created when missing (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--io-threads", defaultValue = "${env:LARDER_IO_THREADS:-0}",
            description = "Event-loop threads accepting and parsing HTTP (default: number of cores; 0 = that).")
    int ioThreads;

    @Option(names = "--transport", defaultValue = "${env:LARDER_TRANSPORT:-auto}",
            description = "auto, io_uring, epoll or nio (default: ${DEFAULT-VALUE}: the best available; the startup "
                    + "log says which and why not the others).")
    TransportKind transport;

    // No sentinel value: unset means 2 x cores, and any number given (-1 included) is validated as given.
    @Option(names = "--workers", defaultValue = "${env:LARDER_WORKERS}",
            description = "Storage worker threads (default: 2 x cores). 0 runs storage calls on the event loop "
                    + "(synchronous mode, the baseline to compare against).")
    Integer workers;

    @Option(names = "--queue-size", defaultValue = "${env:LARDER_QUEUE_SIZE:-128}",
            description = "Pending requests allowed PER WORKER (default: ${DEFAULT-VALUE}; Netty's minimum is 16). "
                    + "Total capacity = workers x queue-size.")
    int queueSize;

    @Option(names = "--rejection", defaultValue = "${env:LARDER_REJECTION:-abort}",
            description = "When a worker's queue is full: abort (503 + Retry-After at once), caller-runs (the event "
                    + "loop runs it: reads slow down), discard-oldest (the oldest waiting request gets the 503); "
                    + "adaptive: requests over a concurrency limit learned from latency get the 503 at once, "
                    + "no queue size or delay to choose. Default: ${DEFAULT-VALUE}.")
    RejectionMode rejection;

    @Option(names = "--limit-algorithm", defaultValue = "${env:LARDER_LIMIT_ALGORITHM:-vegas}",
            description = "What learns the limit of --rejection adaptive: vegas, gradient2 or aimd "
                    + "(default: ${DEFAULT-VALUE}; docs/reliability.md says why).")
    LimitAlgorithm limitAlgorithm;

    // Measured in docs/performance.md, "Session 13", "Session 14" and "Session 26": on one core the hand-off to an
    // idle worker costs two context switches per request, a fifth of the CPU at 25k req/s. Only calls that cannot
    // block run on the loop, so a cold read or a stalled write still goes to a worker. On by default since session 26
    // (lower p99 in the phase run's write phases and first read phase, a third of the switches per GET at 34k/s);
    // 64 since session 30, so that the burst after a pause of the loop stays on it too; 0 restores the plain hand-off.
    @Option(names = "--inline-batch", defaultValue = "${env:LARDER_INLINE_BATCH:-"
            + ServerOptions.DEFAULT_INLINE_BATCH + "}",
            description = "A worker's share of one event-loop iteration, up to this many storage requests, runs on "
                    + "the loop when that worker is idle, as far as it cannot wait: GETs answered from memory, "
                    + "PUTs and DELETEs as one write batch no write stall holds back (never with --sync); the rest "
                    + "go to the worker. 0 always hands over (default: ${DEFAULT-VALUE}).")
    int inlineBatch;

    @Option(names = "--max-queue-delay", defaultValue = "${env:LARDER_MAX_QUEUE_DELAY:-off}",
            description = "A request that waited longer than this in a worker queue is answered 503 without "
                    + "touching storage (default: ${DEFAULT-VALUE}; e.g. 50ms).")
    Duration maxQueueDelay;

    @Option(names = "--max-value-size", defaultValue = "${env:LARDER_MAX_VALUE_SIZE:-16MiB}",
            converter = SizeConverter.class,
            description = "Largest request body; larger gets 413 (default: ${DEFAULT-VALUE}).")
    long maxValueSize;

    @Option(names = "--max-request-line", defaultValue = "${env:LARDER_MAX_REQUEST_LINE:-8k}",
            converter = SizeConverter.class,
            description = "Longest request line; longer gets 414 (default: ${DEFAULT-VALUE}).")
    long maxRequestLine;

    @Option(names = "--max-header-size", defaultValue = "${env:LARDER_MAX_HEADER_SIZE:-16k}",
            converter = SizeConverter.class,
            description = "Largest header block; larger gets 431 (default: ${DEFAULT-VALUE}).")
    long maxHeaderSize;

    // A share, not a fixed size: at 128 MiB the tail benchmark's 4-5 M keys (about 400 MB of blocks) missed the
    // cache on every other GET, and p99 at a fixed rate was 4-10x worse in the later phases (docs/performance.md,
    // "Session 7"). The cache grows only as blocks are read.
    @Option(names = "--block-cache", defaultValue = "${env:LARDER_BLOCK_CACHE:-25%}",
            converter = MemoryShareConverter.class,
            description = "RocksDB block cache for data blocks: a size, or a share of the memory the process may use "
                    + "(of the container's limit if it has one, else of RAM) (default: ${DEFAULT-VALUE}).")
    long blockCache;

    // The clock cache: a GET over millions of cached keys cost about 3% less CPU than with LRU, and the cache's
    // share of the server's CPU fell from 8.1% to 3.5% (docs/performance.md, "Session 32").
    @Option(names = "--block-cache-type", defaultValue = "${env:LARDER_BLOCK_CACHE_TYPE:-hyper-clock}",
            description = "RocksDB's cache implementation for data blocks: hyper-clock (lock-free) or lru "
                    + "(default: ${DEFAULT-VALUE}).")
    BlockCacheType blockCacheType;

    // 4 KiB: after a compaction a miss reads a quarter of what 16 KiB reads (docs/performance.md, "Session 7"); with
    // everything in the cache 16 KiB cost about 5% less CPU per GET at a fixed rate ("Session 69").
    @Option(names = "--block-size", defaultValue = "${env:LARDER_BLOCK_SIZE:-4KiB}",
            converter = SizeConverter.class,
            description = "RocksDB data block size: what the block cache holds and a cache miss reads. Larger blocks "
                    + "make each file's index smaller and a cached GET a little cheaper; smaller ones make a miss "
                    + "cheaper. Applies to files written from now on (default: ${DEFAULT-VALUE}; 1KiB to 1MiB).")
    long blockSize;

    @Option(names = "--row-cache", defaultValue = "${env:LARDER_ROW_CACHE:-0}",
            converter = MemoryShareConverter.class,
            description = "RocksDB row cache: recently read key-value pairs, so a repeated GET skips the block "
                    + "lookup. It pays off only when most GETs repeat keys it holds (a hot set smaller than it): "
                    + "every miss costs a lookup and an insert, more than a hit saves. A size or a share; "
                    + "0 = off (default: ${DEFAULT-VALUE}).")
    long rowCache;

    // auto: 64 MiB where eight fit in a sixteenth of the memory, else 32 MiB. Half the level-0 files for the same
    // writes: a GET cost 0.97x and a PUT 0.95x side by side (docs/performance.md, sessions 98-99; MemtableSize).
    @Option(names = "--write-buffer", defaultValue = "${env:LARDER_WRITE_BUFFER:-auto}",
            converter = MemtableSize.Converter.class,
            description = "RocksDB memtable size: when one fills it is flushed to a level-0 file (which every GET "
                    + "that misses the memtables probes until a compaction merges it) and a new write-ahead log "
                    + "begins; memtable memory is at most --memtables times this. auto = 64MiB where eight of them "
                    + "fit in a sixteenth of the memory the process may use (8 GiB or more), else 32MiB (default: "
                    + "${DEFAULT-VALUE}; at least 64KiB).")
    MemtableSize writeBuffer;

    // auto: a sixteenth of the memory, 4 to 8 of them. Four filled ~25 s into a write phase at 76k PUT/s behind a
    // flush at nice 19 and writes stopped; eight did not (docs/performance.md, sessions 72-73; MemtableCount).
    @Option(names = "--memtables", defaultValue = "${env:LARDER_MEMTABLES:-auto}",
            converter = MemtableCount.Converter.class,
            description = "How many memtables may exist at once: one taking writes, the rest full and waiting for "
                    + "their flush. When all are full RocksDB stops every write until a flush is done. auto = as "
                    + "many of --write-buffer as fit in a sixteenth of the memory the process may use (of the "
                    + "container's limit if it has one, else of RAM), 4 to 8 (default: ${DEFAULT-VALUE}; at "
                    + "least 2).")
    MemtableCount memtables;

    @Option(names = "--background-priority", defaultValue = "${env:LARDER_BACKGROUND_PRIORITY:-low}",
            description = "CPU priority of RocksDB's flush and compaction threads: low (nice 19: they use the CPU the "
                    + "event loops and workers leave idle) or normal (they take a fair share of it, as RocksDB does by "
                    + "default) (default: ${DEFAULT-VALUE}).")
    BackgroundPriority backgroundPriority;

    // Off by default: 2, 4 and 8 ms were no better than the kernel's slice in ten alternating runs at the tail rates
    // (docs/performance.md, "Session 22"). A flag so that trying one is not a C helper and a script.
    @Option(names = "--foreground-slice", defaultValue = "${env:LARDER_FOREGROUND_SLICE:-off}",
            description = "EEVDF time slice the event loops and the workers set on themselves (Linux 6.12+; "
                    + "elsewhere a warning and the kernel's): off (the kernel's, ~0.75-3 ms) or 100us to 100ms, "
                    + "e.g. 4ms (default: ${DEFAULT-VALUE}).")
    Duration foregroundSlice;

    // fair by default: SCHED_FIFO needs a privilege most deployments do not grant, and three alternated rounds at the
    // tail rates showed no difference (docs/performance.md, "Session 60"). A flag so trying it is not chrt and a script
    // that chases thread ids.
    @Option(names = "--foreground-policy", defaultValue = "${env:LARDER_FOREGROUND_POLICY:-fair}",
            description = "Scheduling policy of the event loops and the workers: fair (SCHED_OTHER, like other "
                    + "threads) or fifo (SCHED_FIFO priority 1: a loop or worker that wakes takes the core at once "
                    + "from flushes, compactions and the JIT, which then run while they sleep; needs CAP_SYS_NICE, "
                    + "else a warning and fair) (default: ${DEFAULT-VALUE}).")
    ForegroundPolicy foregroundPolicy;

    // Off by default: a fifth less CPU per GET at 40k/s, for p50 +0.4 ms, but no better p99 at the tail benchmark's
    // rates, where the core is full either way (docs/performance.md, "Session 23").
    @Option(names = "--io-coalesce", defaultValue = "${env:LARDER_IO_COALESCE:-off}",
            description = "Under moderate load, an event loop with nothing left to do waits this long before it "
                    + "blocks for I/O, so one wake-up serves what arrives meanwhile: less CPU per request at a fixed "
                    + "rate for up to about twice this much latency; off (block at once) or 10us to 5ms, e.g. 200us "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration ioCoalesce;

    @Option(names = "--io-coalesce-wait", defaultValue = "${env:LARDER_IO_COALESCE_WAIT:-park}",
            description = "How an event loop waits out --io-coalesce: park (it sleeps; the core may halt) or spin "
                    + "(it busy-waits, so the core stays awake and the next requests run back to back as at "
                    + "saturation; while flushes, compactions and table reads run it sleeps through half its waiting "
                    + "time, so they get the spare time) (default: ${DEFAULT-VALUE}).")
    CoalesceWait ioCoalesceWait;

    // 500us: against off at the tail benchmark's fixed rates, the median second's p99 about 2 ms instead of 3, at the
    // same CPU per request (docs/performance.md, "Session 55").
    @Option(names = "--reschedule-interval", defaultValue = "${env:LARDER_RESCHEDULE_INTERVAL:-500us}",
            description = "While flushes, compactions or table reads run, a thread wakes this often so the "
                    + "scheduler can hand the core back to an event loop before the kernel's next tick (where they "
                    + "share a core, e.g. a server pinned to one); off or 100us to 4ms, e.g. 500us "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration rescheduleInterval;

    // 19: over 9 rounds of the phase run 43 of 45 phases held 10 ms against 34 of 45 at nice 0, and a saturated loop is
    // no longer preempted for nothing (docs/performance.md, "Session 57").
    @Option(names = "--reschedule-nice", defaultValue = "${env:LARDER_RESCHEDULE_NICE:-19}",
            description = "The nice value that thread runs at, 0-19 (never below the server's own): at 19 it hands "
                    + "the core from a flush or compaction back to an event loop but does not preempt a busy loop "
                    + "(default: ${DEFAULT-VALUE}).")
    int rescheduleNice;

    // 10: a compilation after the warm-up at the event loops' priority took half of their core while it lasted (a
    // second at p99 55 ms); at 19 the compilations were deferred into the load itself (docs/performance.md,
    // "Session 93" and "Session 37").
    @Option(names = "--jit-nice", defaultValue = "${env:LARDER_JIT_NICE:-10}",
            description = "The nice value the JVM's JIT compiler threads run at once the warm-up is done, 0-19 (0 = "
                    + "the event loops' own): a compilation under load then takes what the loops leave instead of "
                    + "half the core (default: ${DEFAULT-VALUE}).")
    int jitNice;

    // auto: a server whose workers share the event loop's one CPU read misses on the loop; at the switch from PUT to
    // GET the hand-offs of misses kept the loop waiting 160-246 ms a second (docs/performance.md, "Session 59").
    @Option(names = "--miss-reads", defaultValue = "${env:LARDER_MISS_READS:-auto}",
            description = "Where a GET the block cache cannot answer is read: loop (the event loop reads it, while "
                    + "such reads come from the page cache; after 8 slower than 500us within a second, the next "
                    + "second's go to the workers), workers, or auto: loop when the server may use no more CPUs "
                    + "than it has event loops, as when pinned to one core (default: ${DEFAULT-VALUE}).")
    MissReads missReads;

    // read-back, not as-written: caching a flush's blocks as it writes them doubled its CPU, and at nice 19 on a busy
    // core RocksDB then stopped writes (docs/performance.md, "Session 78").
    @Option(names = "--warm-new-tables", defaultValue = "${env:LARDER_WARM_NEW_TABLES:-read-back}",
            fallbackValue = "read-back", arity = "0..1",
            description = "How a flush's or a compaction's new table files get into the block cache, so the reads "
                    + "after a write phase do not all miss it at once: read-back (a compaction's files are read on "
                    + "its own thread before it installs them, a flush's after it, on a thread of its own at nice 19; "
                    + "outputs larger than half of --block-cache are skipped), as-written (RocksDB caches each block "
                    + "as a flush or compaction writes it: less CPU in all, but more on the flush, which writes wait "
                    + "for) or off; true and false mean read-back and off (default: ${DEFAULT-VALUE}).")
    TableWarming tableWarming;

    @Option(names = "--warmup-requests", defaultValue = "${env:LARDER_WARMUP_REQUESTS:-60000}",
            description = "Before listening, send this many requests of every kind (PUT, GET, range, DELETE, errors) "
                    + "through a throwaway server on loopback over a throwaway store, so the JIT has compiled each "
                    + "request path before the first user request, then rounds of like calls handed to the "
                    + "workers until C2 has compiled their path (at most 10 s, less in proportion below 60000); "
                    + "the real data and metrics never see them (default: ${DEFAULT-VALUE}; 0 = off).")
    long warmupRequests;

    @Option(names = "--sync", defaultValue = "${env:LARDER_SYNC:-false}", fallbackValue = "true", arity = "0..1",
            description = "fsync the write-ahead log before acknowledging a write (survives machine crashes; "
                    + "default: off = survives process crashes).")
    boolean sync;

    @Option(names = "--shutdown-timeout", defaultValue = "${env:LARDER_SHUTDOWN_TIMEOUT:-10s}",
            description = "On SIGTERM/SIGINT, how long queued and running requests may take to finish; what is "
                    + "left is answered 503 (default: ${DEFAULT-VALUE}).")
    Duration shutdownTimeout;

    @Option(names = "--read-timeout", defaultValue = "${env:LARDER_READ_TIMEOUT:-30s}",
            description = "A request must arrive whole within this after its first byte, else 408 and close "
                    + "(default: ${DEFAULT-VALUE}; off disables).")
    Duration readTimeout;

    @Option(names = "--idle-timeout", defaultValue = "${env:LARDER_IDLE_TIMEOUT:-120s}",
            description = "Keep-alive connections idle this long are closed, and so are those whose client has not "
                    + "read its responses for this long (default: ${DEFAULT-VALUE}; off disables).")
    Duration idleTimeout;

    @Option(names = "--max-connections", defaultValue = "${env:LARDER_MAX_CONNECTIONS:-10000}",
            description = "Connections beyond this get 503 and are closed; existing ones keep working "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--write-high-water-mark", defaultValue = "${env:LARDER_WRITE_HIGH_WATER_MARK:-1MiB}",
            converter = SizeConverter.class,
            description = "Outbound bytes queued on a connection above which the server stops reading from it, so a "
                    + "client that does not read cannot make it buffer without bound (default: ${DEFAULT-VALUE}).")
    long writeHighWaterMark;

    @Option(names = "--admin-port", defaultValue = "${env:LARDER_ADMIN_PORT:-8081}",
            description = "Admin port on the same --host: /metrics, /health/live, /health/ready, /debug/profile. "
                    + "Served by its own event loop, so it answers while the data port is saturated "
                    + "(default: ${DEFAULT-VALUE}; 0 = no admin listener).")
    int adminPort;

    @Option(names = "--admin-host", defaultValue = "${env:LARDER_ADMIN_HOST:-127.0.0.1}",
            description = "Address the admin port listens on, apart from --host so the data port can be public while "
                    + "metrics and profiling stay local (default: ${DEFAULT-VALUE}).")
    String adminHost;

    @Option(names = "--tls-cert", defaultValue = "${env:LARDER_TLS_CERT}",
            description = "PEM certificate chain (leaf first): with --tls-key, both ports speak TLS 1.2/1.3 only. "
                    + "Reloaded when the file changes or on SIGHUP; open connections keep their session.")
    Path tlsCert;

    @Option(names = "--tls-key", defaultValue = "${env:LARDER_TLS_KEY}",
            description = "PEM private key of --tls-cert.")
    Path tlsKey;

    @Option(names = "--tls-client-ca", defaultValue = "${env:LARDER_TLS_CLIENT_CA}",
            description = "PEM CA bundle: clients of both ports must present a certificate issued by it (mTLS).")
    Path tlsClientCa;

    @Option(names = "--auth-token-file", defaultValue = "${env:LARDER_AUTH_TOKEN_FILE}",
            description = "Bearer tokens the data port accepts, one per line (add the new one, then remove the old "
                    + "to rotate; reloaded on change or SIGHUP). Without one: 401 (/v0/status stays open).")
    Path authTokenFile;

    @Option(names = "--admin-token-file", defaultValue = "${env:LARDER_ADMIN_TOKEN_FILE}",
            description = "Bearer tokens the admin port accepts, one per line; /health/live and /health/ready "
                    + "stay open.")
    Path adminTokenFile;

    @Option(names = "--profiling", defaultValue = "${env:LARDER_PROFILING:-false}", fallbackValue = "true",
            arity = "0..1",
            description = "Serve /debug/profile on the admin port (stack traces of the running server; behind "
                    + "--admin-token-file when set) (default: ${DEFAULT-VALUE}).")
    boolean profiling;

    @Option(names = "--insecure-bind-ok", defaultValue = "${env:LARDER_INSECURE_BIND_OK:-false}",
            fallbackValue = "true", arity = "0..1",
            description = "The data port is meant to be reachable beyond loopback without client certificates or a "
                    + "token (a private network): no warning in the log, on /health/ready or in "
                    + "larder_security_exposed (default: ${DEFAULT-VALUE}).")
    boolean insecureBindOk;

    @Option(names = "--reload-interval", defaultValue = "${env:LARDER_RELOAD_INTERVAL:-1s}",
            description = "How often the certificate and token files are checked for changes; SIGHUP reloads them "
                    + "at once (default: ${DEFAULT-VALUE}).")
    Duration reloadInterval;

    @Option(names = "--metrics", defaultValue = "${env:LARDER_METRICS:-true}", fallbackValue = "true", arity = "0..1",
            description = "Record metrics and serve them on /metrics (default: ${DEFAULT-VALUE}). --metrics=false "
                    + "records nothing (to measure what recording costs); /metrics then answers 404.")
    boolean metrics;

    @Override
    public Integer call() {
        CommandSupport.leakDetectionOffUnlessAsked();
        ServerOptions serverOptions = serverOptions();
        checkAdminPort();
        ServerSecurity security = security();
        Exposure exposure = Exposure.of(host, security.data(), insecureBindOk);
        if (writeBufferBytes() < StoreOptions.MIN_WRITE_BUFFER_BYTES) {
            throw new ParameterException(spec.commandLine(), "--write-buffer: " + writeBufferBytes()
                    + " (expected: >= " + StoreOptions.MIN_WRITE_BUFFER_BYTES + ")");
        }
        if (jitNice < 0 || jitNice > ThreadNice.MAX) {
            throw new ParameterException(spec.commandLine(), "--jit-nice: " + jitNice + " (expected: 0.."
                    + ThreadNice.MAX + ")");
        }
        if (warmupRequests < 0) {
            throw new ParameterException(spec.commandLine(), "--warmup-requests: " + warmupRequests
                    + " (expected: >= 0)");
        }
        StoreOptions storeOptions;
        try {
            storeOptions = storeOptions();
        } catch (IllegalArgumentException e) {
            // StoreOptions' own refusal ("memtables: 1 (expected: >= 2)") names the flag's field.
            throw CommandSupport.invalid(spec, e);
        }
        // Before the store and the warm-up, which take seconds: a taken port is the commonest start-up failure.
        // Port 0 (any free port; for the admin listener, none) is always answered as bindable.
        Optional<String> dataPortTaken = PortProbe.whyNotBindable(host, port);
        if (dataPortTaken.isPresent()) {
            // The listener's own words when its bind fails (LarderServer), so the message is one either way.
            return cannotStart("cannot listen on " + host + ":" + port + ": " + dataPortTaken.get());
        }
        Optional<String> adminPortTaken = PortProbe.whyNotBindable(adminHost, adminPort);
        if (adminPortTaken.isPresent()) {
            return cannotStartAdmin(adminPortTaken.get());
        }
        RocksDbStore store;
        try {
            store = RocksDbStore.open(storeOptions);
        } catch (StoreException e) {
            spec.commandLine().getErr().println("larder: cannot open store: " + e.getMessage());
            return 1;
        }
        store.walRecoveryWarning().ifPresent(warning -> log.warn("recovery: {}", warning));
        if (tableWarming != TableWarming.OFF && !store.warmsNewTables()) {
            log.warn("--warm-new-tables: off, because the warming thread's priority could not be lowered to nice 19 "
                    + "with renice (util-linux); at normal priority it would compete with the event loops");
        }
        // Before the JIT warm-up and the listeners: the profiler's first start took about 0.2 s of CPU here, which
        // under load came out of the event loop's core.
        ProfileEndpoint profile = profiling && adminPort != 0 ? new ProfileEndpoint(new AsyncProfilerLoader()) : null;
        if (profile != null) {
            log.info("{}", profile.warmUp(PROFILER_WARM_UP_TIMEOUT));
        }
        if (warmupRequests > 0) {
            try {
                JitWarmup.Report warmup = JitWarmup.run(serverOptions, storeOptions, metrics, warmupRequests,
                        METRICS_CLOCK_RESOLUTION);
                log.info("warm-up: {} requests through a throwaway server, then {} in rounds for the worker's path, "
                        + "{} scrapes of its metrics, in {} ms", warmupRequests, warmup.inStepRequests(),
                        warmup.soakScrapes(), warmup.took().toMillis());
                if (!warmup.notCompiled().isEmpty()) {
                    log.info("warm-up: C2 had not compiled {} of the worker's path by its end; the first load will",
                            warmup.notCompiled());
                }
            } catch (RuntimeException e) {
                log.warn("warm-up failed, starting without it: {}", e.toString());
            }
        }
        // After the warm-up, which needs the compilers at full speed, and before any load.
        String jit = lowerJitPriority();
        CoarseClock clock = metrics ? new CoarseClock(METRICS_CLOCK_RESOLUTION) : null;
        PrometheusMeterRegistry registry = metrics
                ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(), clock) : null;
        LarderMeters meters = registry != null ? new LarderMeters(registry, clock) : null;
        // One full collection, before the listeners open, moves what start-up and the warm-up left alive (about
        // 7 MiB) to the old generation. Otherwise each young collection copies it again until it has survived 15 of
        // them (or 2, with the README's -XX:MaxTenuringThreshold=2): with the README's 1 GiB young generation (a
        // collection every 6-12 s at high rates) that is the first minutes of serving, and those collections paused
        // 9-17 ms instead of 0.9 (docs/performance.md, "Session 35").
        System.gc();
        LarderServer server;
        try {
            server = LarderServer.start(serverOptions, security.data(), store,
                    meters != null ? meters.observer() : ServerObserver.NOOP);
        } catch (RuntimeException e) {
            closeAll(null, profile, meters, store);
            return cannotStart(e.getMessage());
        }
        if (meters != null) {
            meters.bindServer(server);
            meters.bindStore(store.stats());
            exposure.bindTo(registry);
        }
        ReadyEndpoint ready = new ReadyEndpoint(List.of(
                () -> server.ready() ? Optional.empty() : Optional.of("data listener not serving"),
                storeOpen(store)), exposure.warning().stream().toList());
        AdminServer admin = null;
        if (adminPort != 0) {
            try {
                admin = AdminServer.start(new AdminOptions(adminHost, adminPort), security.admin(),
                        server.transport(), adminEndpoints(registry, ready, profile));
            } catch (RuntimeException e) {
                server.close();
                closeAll(null, profile, meters, store);
                return cannotStartAdmin(e.getMessage());
            }
        }
        ShutdownSignal signal = ShutdownSignal.install();
        SecurityReloader reloader = SecurityReloader.start(security.reloadable(), reloadInterval);
        ReloadSignal.install(reloader::reloadAll);
        exposure.warning().ifPresent(warning -> log.warn("SECURITY WARNING: {}", warning));
        log.info("larder started: {} {} metrics={} durability={} data-dir={} block-cache={}MiB block-cache-type={} "
                        + "block-size={} row-cache={}MiB memtables={}x{}MiB warm-new-tables={} jit-uncommon-traps={} "
                        + "young-gen={} old-gen={} tenuring={} jit-nice={}",
                server.describe(), admin != null ? admin.describe() : "admin off (--admin-port 0)",
                metrics ? "on" : "off (--metrics=false)",
                sync ? "sync (fsync WAL per write group)" : "wal (survives process crash)",
                dataDir.toAbsolutePath().normalize(), blockCache >> 20, blockCacheType.flag(),
                blockSize % 1024 == 0 ? (blockSize >> 10) + "KiB" : blockSize + "B", rowCache >> 20,
                storeOptions.memtables(), storeOptions.writeBufferBytes() >> 20, tableWarming.flag(),
                UncommonTraps.ofThisJvm(), youngGeneration(), oldGeneration(), tenuring(), jit);
        String received = signal.await();
        log.info("{} received: draining for up to {}", received, serverOptions.shutdownTimeout());
        // Not ready first, so load balancers stop sending while the data port still answers what is in flight.
        ready.beginShutdown();
        // Then reverse order of start: the data listener drains and stops; the admin listener (which scrapes the
        // store's gauges) and the meters go before the store they read is closed.
        reloader.close();
        server.close();
        closeAll(admin, profile, meters, store);
        log.info("larder stopped");
        return 0;
    }

    /** {@code --jit-nice} applied to this JVM's compiler threads; what the start-up line says of it. */
    private String lowerJitPriority() {
        if (jitNice == 0) {
            return "0";
        }
        try {
            List<Integer> nice = JitCompilerNice.apply(jitNice, Path.of("/proc/self/task"));
            long kept = nice.stream().filter(n -> n > jitNice).count();
            // A server started under `nice` keeps its compilers at its own value: the line says so, not jitNice.
            String keptOwn = kept == 0 ? "" : ", " + kept + " kept their own higher nice "
                    + nice.stream().mapToInt(Integer::intValue).max().orElseThrow();
            return jitNice + " (" + nice.size() + " compiler threads" + keptOwn + ")";
        } catch (IOException | RuntimeException | LinkageError e) {
            // Not Linux, no /proc, or JNA not loadable here: the compilers then share the core as before.
            log.warn("--jit-nice {}: the JIT compiler threads keep the event loops' priority: {}", jitNice,
                    e.toString());
            return "0 (" + jitNice + " refused)";
        }
    }

    /** Says why the server cannot start; exit status 1. */
    private int cannotStart(String why) {
        spec.commandLine().getErr().println("larder: cannot start: " + why);
        return 1;
    }

    /** Says why the admin listener cannot start; exit status 1. */
    private int cannotStartAdmin(String why) {
        spec.commandLine().getErr().println("larder: cannot start the admin listener on " + adminHost + ":" + adminPort
                + ": " + why);
        return 1;
    }

    private static HealthCheck storeOpen(RocksDbStore store) {
        // A closed store answers no property: this is a real call into the engine, not a flag.
        return () -> store.stats().property("rocksdb.estimate-num-keys").isPresent()
                ? Optional.empty() : Optional.of("store closed");
    }

    static final String METRICS_PATH = "/metrics";

    /** The admin listener's endpoints; the JIT warm-up serves the same ones from its throwaway listener. */
    static Map<String, AdminEndpoint> adminEndpoints(PrometheusMeterRegistry registry, ReadyEndpoint ready,
                                                             ProfileEndpoint profile) {
        Map<String, AdminEndpoint> endpoints = new LinkedHashMap<>();
        if (registry != null) {
            endpoints.put(METRICS_PATH, new MetricsEndpoint(registry));
        }
        endpoints.put("/health/live", new LiveEndpoint());
        endpoints.put("/health/ready", ready);
        if (profile != null) {
            endpoints.put("/debug/profile", profile);
        }
        return endpoints;
    }

    /**
     * Closes what start-up opened, the store last. The admin listener closes the endpoints it was given; without one,
     * the profile endpoint (its thread, and a warm-up still going) is closed here.
     */
    private static void closeAll(AdminServer admin, ProfileEndpoint profile, LarderMeters meters,
                                 RocksDbStore store) {
        if (admin != null) {
            admin.close();
        } else if (profile != null) {
            profile.close();
        }
        if (meters != null) {
            meters.close();
        }
        store.close();
    }

    StoreOptions storeOptions() {
        // One reading of the memory limit for the memtables' size and their count, so the count the store gets always
        // fits the size it gets with it.
        long memory = MemoryShareConverter.memoryLimit();
        long writeBufferBytes = writeBuffer.resolve(memory);
        return new StoreOptions(dataDir, blockCache, rowCache, sync, true,
                backgroundPriority == BackgroundPriority.low, writeBufferBytes, tableWarming,
                memtables.resolve(memory, writeBufferBytes), blockCacheType, blockSize);
    }

    long writeBufferBytes() {
        return writeBuffer.resolve(MemoryShareConverter.memoryLimit());
    }

    ServerOptions serverOptions() {
        try {
            return ServerOptions.builder(CORES)
                    .host(host)
                    .port(port)
                    .ioThreads(ioThreads == 0 ? CORES : ioThreads)
                    .transport(transport)
                    .workers(workers == null ? 2 * CORES : workers)
                    .queueSize(queueSize)
                    .rejection(rejection)
                    .limitAlgorithm(limitAlgorithm)
                    .inlineBatch(inlineBatch)
                    .foregroundSlice(foregroundSlice)
                    .foregroundPolicy(foregroundPolicy)
                    .ioCoalesce(ioCoalesce)
                    .ioCoalesceWait(ioCoalesceWait)
                    .rescheduleInterval(rescheduleInterval)
                    .rescheduleNice(rescheduleNice)
                    .missReads(missReads)
                    .maxQueueDelay(maxQueueDelay)
                    .maxValueSize(toInt("--max-value-size", maxValueSize))
                    .maxRequestLine(toInt("--max-request-line", maxRequestLine))
                    .maxHeaderSize(toInt("--max-header-size", maxHeaderSize))
                    .shutdownTimeout(shutdownTimeout)
                    .readTimeout(readTimeout)
                    .idleTimeout(idleTimeout)
                    .maxConnections(maxConnections)
                    .writeHighWaterMark(toInt("--write-high-water-mark", writeHighWaterMark))
                    .build();
        } catch (IllegalArgumentException e) {
            throw CommandSupport.invalid(spec, e);
        }
    }

    /** The TLS and token files, read and checked now: a bad one is a bad flag (exit 2), not a failed start. */
    private ServerSecurity security() {
        try {
            return ServerSecurity.load(new SecurityOptions(tlsCert, tlsKey, tlsClientCa, authTokenFile,
                    adminTokenFile, insecureBindOk, reloadInterval));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--" + e.getMessage());
        }
    }

    private void checkAdminPort() {
        if (adminPort < 0 || adminPort > 65535) {
            throw new ParameterException(spec.commandLine(), "--admin-port: " + adminPort + " (expected: 0..65535)");
        }
        if (adminPort != 0 && adminPort == port) {
            throw new ParameterException(spec.commandLine(), "--admin-port: " + adminPort
                    + " (expected: a port other than --port " + port + ")");
        }
    }

    private int toInt(String flag, long value) {
        if (value > Integer.MAX_VALUE - 8) {
            throw new ParameterException(spec.commandLine(), flag + ": " + value + " (expected: < 2GiB)");
        }
        return (int) value;
    }

    /** Values of {@code --background-priority}, spelled as the flag takes them. */
    enum BackgroundPriority { low, normal }

    /**
     * The young generation this JVM was given ({@code NewSize}, as {@code -Xmn} sets it): the README's command sets
     * 1 GiB; {@code jvm-default} when nothing set it (G1 then sizes it as it goes; the serial collector a server
     * pinned to one core gets takes a third of the initial heap, and a request's garbage means a collection every
     * second at high rates). {@code unknown} where the option cannot be read.
     */
    private static String youngGeneration() {
        return vmOptionIfSet("NewSize", ServeCommand::mebibytes);
    }

    /**
     * The old generation's initial size ({@code OldSize}): the README's command sets 256 MiB, so the serial collector
     * does not follow a young collection that had to grow it with a full one ({@link ServerJvm#HEAP_FLAGS});
     * {@code jvm-default} when nothing set it.
     */
    private static String oldGeneration() {
        return vmOptionIfSet("OldSize", ServeCommand::mebibytes);
    }

    private static String mebibytes(String bytes) {
        return (Long.parseLong(bytes) >> 20) + "MiB";
    }

    /**
     * How many young collections an object survives before promotion ({@code MaxTenuringThreshold}): the README's
     * command sets 2; {@code jvm-default} (15) when nothing set it.
     */
    private static String tenuring() {
        return vmOptionIfSet("MaxTenuringThreshold", java.util.function.UnaryOperator.identity());
    }

    /** A HotSpot option's value as {@code format} shows it, {@code jvm-default} if nothing set it, or {@code unknown}. */
    private static String vmOptionIfSet(String name, java.util.function.UnaryOperator<String> format) {
        try {
            VMOption option = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(name);
            if (option.getOrigin() == VMOption.Origin.DEFAULT) {
                return "jvm-default";
            }
            return format.apply(option.getValue());
        } catch (RuntimeException e) {
            return "unknown";
        }
    }
}
