package dev.larder.server.metrics;

import dev.larder.server.LarderServer;
import dev.larder.server.config.ServerObserver;
import dev.larder.storage.StoreStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.distribution.pause.NoPauseDetector;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything Larder measures, bound to one registry that the caller created and passes in: the request-path
 * observer, JVM and process binders, the Netty allocator, and (once they exist) the server's and the store's gauges.
 *
 * <p>Lifecycle: create before the server (the server needs {@link #observer()}), {@link #bindServer} and
 * {@link #bindStore} after it started, {@link #close()} after the last scrape and before the store is closed.
 */
public final class LarderMeters implements AutoCloseable {

    private final MeterRegistry registry;
    private final AutoCloseable clock;
    private final MicrometerObserver observer;
    // Binders stay referenced here: some hold the state of function meters that the registry only keeps weakly.
    private final List<MeterBinder> binders = new ArrayList<>();

    public LarderMeters(MeterRegistry registry) {
        this(registry, null);
    }

    /**
     * @param clock the registry's clock when the caller made it for this registry alone (a {@link CoarseClock}):
     *              closed after the registry; {@code null} when there is none to close
     */
    public LarderMeters(MeterRegistry registry, AutoCloseable clock) {
        this.registry = registry;
        this.clock = clock;
        // Micrometer's default pause detector runs two background threads and, on every record(), updates a shared
        // interval estimator: contended between event loops and workers, and a third of the recording cost. Its only
        // use is to invent samples for JVM pauses, which the GC pause timer already shows directly.
        registry.config().pauseDetector(new NoPauseDetector());
        this.observer = new MicrometerObserver(registry);
        bind(new JvmMemoryMetrics());
        bind(new CollectorMetrics());
        bind(new JvmThreadMetrics());
        bind(new ClassLoaderMetrics());
        bind(new ProcessorMetrics());
        bind(new UptimeMetrics());
        bind(new FileDescriptorMetrics());
        // The data port's channels allocate from Netty's default allocator (adaptive in 4.2, pooled before).
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider) {
            bind(new NettyAllocatorMetrics(provider));
        }
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** What the server reports its request path to. */
    public ServerObserver observer() {
        return observer;
    }

    /** Queue depth, connections and event-loop gauges of a started server. */
    public void bindServer(LarderServer server) {
        bind(new ServerMetrics(server));
    }

    /** RocksDB gauges and tickers; safe to scrape after the store closed (they read empty). */
    public void bindStore(StoreStats stats) {
        bind(new RocksDbMetrics(stats));
    }

    private void bind(MeterBinder binder) {
        binder.bindTo(registry);
        binders.add(binder);
    }

    /** Closes the binders that hold resources, the registry, then its clock; gauges are not read after this. */
    @Override
    public void close() {
        for (MeterBinder binder : binders) {
            if (binder instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    // A binder that fails to unregister its listeners must not stop the shutdown.
                }
            }
        }
        registry.close();
        if (clock != null) {
            try {
                clock.close();
            } catch (Exception e) {
                // Only stops a daemon thread.
            }
        }
    }
}
