package dev.larder.server.metrics;

import dev.larder.server.LarderServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.netty4.NettyEventExecutorMetrics;

/**
 * Gauges read from a running {@link LarderServer}: queue depth per worker and in total, queue capacity, open
 * connections, the rescheduler's wake-ups, and (through Micrometer's Netty binder) the event loops' pending tasks.
 * Read at scrape time only.
 */
public final class ServerMetrics implements MeterBinder {

    private final LarderServer server;

    public ServerMetrics(LarderServer server) {
        this.server = server;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        int workers = server.pendingPerWorker().length;
        for (int i = 0; i < workers; i++) {
            int worker = i;
            Gauge.builder("larder.worker.pending", server, s -> pendingOf(s, worker))
                    .description("Requests waiting in one worker's queue")
                    .tag("worker", Integer.toString(worker))
                    .strongReference(true)
                    .register(registry);
        }
        Gauge.builder("larder.queue.pending", server, ServerMetrics::pendingTotal)
                .description("Requests waiting in all worker queues")
                .strongReference(true)
                .register(registry);
        Gauge.builder("larder.queue.capacity", server, s -> s.options().queueCapacity())
                .description("Requests all worker queues can hold (workers x --queue-size; 0 in synchronous mode)")
                .strongReference(true)
                .register(registry);
        Gauge.builder("larder.connections.active", server, LarderServer::openConnections)
                .description("Connections open on the data port")
                .strongReference(true)
                .register(registry);
        if (server.concurrencyLimit() >= 0) {
            // Only with --rejection adaptive: a constant -1 series would read as a limit on the dashboard.
            Gauge.builder("larder.limit.current", server, LarderServer::concurrencyLimit)
                    .description("The adaptive concurrency limit: requests that may be queued or running at once")
                    .strongReference(true)
                    .register(registry);
            Gauge.builder("larder.limit.inflight", server, LarderServer::limitedInFlight)
                    .description("Requests admitted under the adaptive limit and not yet answered")
                    .strongReference(true)
                    .register(registry);
        }
        if (server.rescheduleWakeups() >= 0) {
            // What --reschedule-interval costs the core: one wake-up each, only while flushes, compactions or the
            // table warmer run.
            FunctionCounter.builder("larder.rescheduler.wakeups", server, LarderServer::rescheduleWakeups)
                    .description("Wake-ups of the thread that gives the scheduler a decision point between ticks "
                            + "while the store's background works (--reschedule-interval)")
                    .register(registry);
        }
        if (server.coalesceSpinSeconds() >= 0) {
            // The loops' CPU that served no request: a reading of the loops' threads' CPU includes it.
            FunctionCounter.builder("larder.io.coalesce.spin", server, LarderServer::coalesceSpinSeconds)
                    .description("Time the event loops spun through --io-coalesce windows "
                            + "(--io-coalesce-wait spin) instead of sleeping")
                    .baseUnit("seconds")
                    .register(registry);
        }
        new NettyEventExecutorMetrics(server.eventLoops()).bindTo(registry);
    }

    private static double pendingOf(LarderServer server, int worker) {
        int[] pending = server.pendingPerWorker();
        return worker < pending.length ? pending[worker] : Double.NaN;
    }

    private static double pendingTotal(LarderServer server) {
        long total = 0;
        for (int pending : server.pendingPerWorker()) {
            total += pending;
        }
        return total;
    }
}
