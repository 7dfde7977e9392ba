package dev.larder.cli;

import dev.larder.server.LarderServer;
import dev.larder.server.RejectionMode;
import dev.larder.server.ServerObserver;
import dev.larder.server.ServerOptions;
import dev.larder.server.TransportKind;
import dev.larder.storage.RocksDbStore;
import dev.larder.storage.StoreException;
import dev.larder.storage.StoreOptions;
import java.nio.file.Path;
import java.time.Duration;
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

    @Option(names = "--transport", defaultValue = "${env:LARDER_TRANSPORT:-auto}", converter = TransportConverter.class,
            description = "auto, io_uring, epoll or nio (default: ${DEFAULT-VALUE}: the best available; the startup "
                    + "log says which and why not the others).")
    TransportKind transport;

    @Option(names = "--workers", defaultValue = "${env:LARDER_WORKERS:--1}",
            description = "Storage worker threads (default: 2 x cores). 0 runs storage calls on the event loop "
                    + "(synchronous mode, the baseline to compare against).")
    int workers;

    @Option(names = "--queue-size", defaultValue = "${env:LARDER_QUEUE_SIZE:-128}",
            description = "Pending requests allowed PER WORKER (default: ${DEFAULT-VALUE}; Netty's minimum is 16). "
                    + "Total capacity = workers x queue-size.")
    int queueSize;

    @Option(names = "--rejection", defaultValue = "${env:LARDER_REJECTION:-abort}", converter = RejectionConverter.class,
            description = "When a worker's queue is full: abort (503 + Retry-After at once), caller-runs (the event "
                    + "loop runs it: reads slow down), discard-oldest (the oldest waiting request gets the 503). "
                    + "Default: ${DEFAULT-VALUE}.")
    RejectionMode rejection;

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

    @Option(names = "--block-cache", defaultValue = "${env:LARDER_BLOCK_CACHE:-128MiB}", converter = SizeConverter.class,
            description = "RocksDB block cache for data, index and filter blocks (default: ${DEFAULT-VALUE}).")
    long blockCache;

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

    @Override
    public Integer call() {
        ServerOptions serverOptions = serverOptions();
        StoreOptions storeOptions = new StoreOptions(dataDir, blockCache, sync, true);
        RocksDbStore store;
        try {
            store = RocksDbStore.open(storeOptions);
        } catch (StoreException e) {
            spec.commandLine().getErr().println("larder: cannot open store: " + e.getMessage());
            return 1;
        }
        LarderServer server;
        try {
            server = LarderServer.start(serverOptions, store, ServerObserver.NOOP);
        } catch (RuntimeException e) {
            store.close();
            spec.commandLine().getErr().println("larder: cannot start: " + e.getMessage());
            return 1;
        }
        ShutdownSignal signal = ShutdownSignal.install();
        log.info("larder started: {} durability={} data-dir={} block-cache={}MiB",
                server.describe(), sync ? "sync (fsync WAL per write group)" : "wal (survives process crash)",
                dataDir.toAbsolutePath().normalize(), blockCache >> 20);
        String received = signal.await();
        log.info("{} received: draining for up to {}", received, serverOptions.shutdownTimeout());
        // Reverse order of start: the listener drains and stops before the store it writes to is closed.
        server.close();
        store.close();
        log.info("larder stopped");
        return 0;
    }

    ServerOptions serverOptions() {
        try {
            return ServerOptions.builder(CORES)
                    .host(host)
                    .port(port)
                    .ioThreads(ioThreads == 0 ? CORES : ioThreads)
                    .transport(transport)
                    .workers(workers == -1 ? 2 * CORES : workers)
                    .queueSize(queueSize)
                    .rejection(rejection)
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
            throw new ParameterException(spec.commandLine(), "--" + e.getMessage());
        }
    }

    private int toInt(String flag, long value) {
        if (value > Integer.MAX_VALUE - 8) {
            throw new ParameterException(spec.commandLine(), flag + ": " + value + " (expected: < 2GiB)");
        }
        return (int) value;
    }

    static final class TransportConverter implements picocli.CommandLine.ITypeConverter<TransportKind> {
        @Override
        public TransportKind convert(String value) {
            return TransportKind.fromFlag(value);
        }
    }

    static final class RejectionConverter implements picocli.CommandLine.ITypeConverter<RejectionMode> {
        @Override
        public RejectionMode convert(String value) {
            return RejectionMode.fromFlag(value);
        }
    }
}
