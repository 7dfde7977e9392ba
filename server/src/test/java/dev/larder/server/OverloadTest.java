package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerObserver;
import dev.larder.storage.Store;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.ResourceLeakDetector;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each rejection mode under about three times the load the server can serve, offered open-loop (requests leave on
 * schedule whether or not earlier ones were answered) for a sustained period:
 *
 * <ul>
 *   <li>no worker queue ever holds more than {@code --queue-size} (sampled every 5 ms);
 *   <li>the heap does not grow with time (measured after a full GC a third of the way in and at the end);
 *   <li>refused requests are answered 503 quickly (p99 from send);
 *   <li>{@code /v0/status} keeps answering on a connection of its own;
 *   <li>when the load drops back, throughput is at least 95% of what it was at the same load before (in one of
 *       three 3 s tries, so that a second the host takes is not read as a server that did not recover).
 * </ul>
 *
 * The server and the client share the JVM and the machine, so capacity is measured here first (closed loop, at a
 * concurrency the queues hold without refusing) and the open-loop rates are scaled to it. Each storage call is made
 * to take {@code larder.overload.storeDelayMicros} longer (default 2000, a slow disk): the server is then bound by
 * its workers, as a storage server is, rather than by the CPU it shares with the client, and three times its
 * capacity is something the client can actually offer. {@code 0} measures raw RocksDB speed. Figures are printed
 * for docs/reliability.md; only bounds that do not depend on the machine's speed are asserted.
 *
 * <p>{@code -Dlarder.overload.seconds=N} (default 6) sets the length of the overload.
 */
class OverloadTest {

    private static final double OVERLOAD_SECONDS = Double.parseDouble(System.getProperty("larder.overload.seconds", "6"));
    private static final long STORE_DELAY_MICROS = Long.getLong("larder.overload.storeDelayMicros", 2000);
    private static final double FACTOR = 3.0;
    private static final double CALM = 0.5;
    private static final int RECOVERY_TRIES = 3;
    private static final int WORKERS = 2;
    private static final int QUEUE = 16;
    // Four times what the queues hold, so they fill; one request in flight per connection, so a 503's latency is the
    // server's reaction, not the wait behind earlier requests pipelined on the same connection.
    private static final int CONNECTIONS = 128;
    private static final long MiB = 1 << 20;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "--rejection {0}")
    @EnumSource(RejectionMode.class)
    void threeTimesCapacityIsRefusedCleanlyAndTheServerRecovers(RejectionMode mode) throws Exception {
        try (TestServer larder = new TestServer(dir, o -> o.ioThreads(2).workers(WORKERS).queueSize(QUEUE)
                .rejection(mode), SlowStore::new, ServerObserver.NOOP);
             OpenLoopClient load = new OpenLoopClient(larder.address(), CONNECTIONS, 1, 10_000, 1024)) {
            load.preload();
            ((SlowStore) larder.store).slow = true;
            load.closedLoop("warm-up", WORKERS * QUEUE / 2, 3);
            OpenLoopClient.Phase capacity = load.closedLoop("capacity", WORKERS * QUEUE / 2, 2);
            double x = capacity.goodput();
            OpenLoopClient.Phase before = load.run("before", CALM * x, 3);

            Sampler sampler = new Sampler(larder);
            sampler.start();
            long heapStart = heapAfterGc();
            Thread midGc = new Thread(() -> sampler.heapMid.set(heapAfterGc()));
            OpenLoopClient.Phase overload;
            try (Probe probe = new Probe(larder)) {
                Thread timer = new Thread(() -> {
                    pause((long) (OVERLOAD_SECONDS * 1000 / 3));
                    midGc.start();
                });
                timer.start();
                overload = load.run("overload", FACTOR * x, OVERLOAD_SECONDS);
                timer.join();
                midGc.join();
                sampler.heapEnd = heapAfterGc();
                probe.assertAlwaysAnswered();
                sampler.statusMaxMillis = probe.maxMillis();
                sampler.probes = probe.count();
            } finally {
                sampler.stop = true;
                sampler.join();
            }
            load.run("settle", CALM * x, 1);
            // A host that takes the machine for a second at the wrong moment (seen in CI: 301/s against 322/s) looks
            // like a server that did not recover; one that did not recovers in none of three tries either.
            List<OpenLoopClient.Phase> afters = new ArrayList<>();
            OpenLoopClient.Phase after;
            do {
                after = load.run("after" + (afters.isEmpty() ? "" : " (try " + (afters.size() + 1) + ")"), CALM * x, 3);
                afters.add(after);
            } while (!recovered(after, before) && afters.size() < RECOVERY_TRIES);
            OpenLoopClient.Phase capacityAfter = load.closedLoop("capacity after", WORKERS * QUEUE / 2, 2);

            System.out.printf("overload %s (store delay %d us, leak detection %s): capacity %.0f req/s (closed loop, "
                            + "%d in flight); capacity after %.0f req/s (%.0f%%)%n  %s%n  %s%n  %s%n  max pending per "
                            + "worker %d (bound %d); heap after GC %d MiB at start, %d MiB a third in, %d MiB at the "
                            + "end; Netty direct %d MiB; /v0/status max %.1f ms over %d probes%n",
                    mode.flag(), STORE_DELAY_MICROS, ResourceLeakDetector.getLevel(), x, WORKERS * QUEUE / 2,
                    capacityAfter.goodput(), 100 * capacityAfter.goodput() / x, before, overload, joined(afters),
                    sampler.maxPending.get(), QUEUE, heapStart / MiB, sampler.heapMid.get() / MiB,
                    sampler.heapEnd / MiB, directMemory() / MiB, sampler.statusMaxMillis, sampler.probes);

            assertTrue(sampler.maxPending.get() <= QUEUE, "a worker queue held " + sampler.maxPending.get());
            assertTrue(sampler.heapEnd - sampler.heapMid.get() < 48 * MiB, "heap grew from "
                    + sampler.heapMid.get() / MiB + " MiB to " + sampler.heapEnd / MiB + " MiB under overload");
            assertTrue(overload.ok > 0, "nothing was served under overload");
            assertEquals(0, overload.other + overload.closed, "answers other than 2xx/503, or connections closed");
            if (mode != RejectionMode.CALLER_RUNS) {
                assertTrue(overload.rejected > 0, "three times capacity, yet nothing was refused");
                assertTrue(overload.rejectedMillis(99) < 1000, "503s were slow: p99 " + overload.rejectedMillis(99));
            } else {
                assertEquals(0, overload.rejected, "caller-runs never refuses");
            }
            assertTrue(recovered(after, before), String.format("%s: throughput did not recover in %d tries of 3 s: "
                    + "%s against %.0f/s before", mode.flag(), afters.size(), afters.stream()
                    .map(a -> String.format("%.0f/s (503 %d, p99 %.1f ms)", a.goodput(), a.rejected, a.okMillis(99)))
                    .toList(), before.goodput()));
        }
    }

    private static boolean recovered(OpenLoopClient.Phase after, OpenLoopClient.Phase before) {
        return after.goodput() >= 0.95 * before.goodput();
    }

    private static String joined(List<OpenLoopClient.Phase> phases) {
        return String.join(String.format("%n  "), phases.stream().map(Object::toString).toList());
    }

    private static long heapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long directMemory() {
        return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p
                ? p.metric().usedDirectMemory() : -1;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Samples the worker queues every 5 ms. */
    private static final class Sampler extends Thread {
        private final TestServer larder;
        final AtomicInteger maxPending = new AtomicInteger();
        final AtomicLong heapMid = new AtomicLong();
        volatile long heapEnd;
        volatile boolean stop;
        double statusMaxMillis;
        int probes;

        Sampler(TestServer larder) {
            super("queue-sampler");
            this.larder = larder;
        }

        @Override
        public void run() {
            while (!stop) {
                for (int pending : larder.server.pendingPerWorker()) {
                    maxPending.accumulateAndGet(pending, Math::max);
                }
                pause(5);
            }
        }
    }

    /** Asks {@code /v0/status} every 100 ms on its own keep-alive connection; every ask must be answered. */
    private static final class Probe extends Thread implements AutoCloseable {
        private final RawHttp http;
        private final List<Long> latencies = new ArrayList<>();
        private volatile boolean stop;
        private volatile Exception failure;

        Probe(TestServer larder) throws Exception {
            super("status-probe");
            http = larder.connect();
            start();
        }

        @Override
        public void run() {
            try {
                while (!stop) {
                    long start = System.nanoTime();
                    RawHttp.Response r = http.exchange("GET", "/v0/status", null);
                    if (r.status() != 200) {
                        throw new IllegalStateException("status answered " + r.status());
                    }
                    synchronized (latencies) {
                        latencies.add(System.nanoTime() - start);
                    }
                    Thread.sleep(100);
                }
            } catch (Exception e) {
                failure = e;
            }
        }

        void assertAlwaysAnswered() throws Exception {
            stop = true;
            join(15_000);
            if (failure != null) {
                throw new AssertionError("/v0/status stopped answering under overload", failure);
            }
            assertTrue(latencies.size() > 0, "no status probe completed");
        }

        double maxMillis() {
            synchronized (latencies) {
                return latencies.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6;
            }
        }

        int count() {
            synchronized (latencies) {
                return latencies.size();
            }
        }

        @Override
        public void close() throws Exception {
            stop = true;
            http.close();
        }
    }

    /** The real store, each call made {@link #STORE_DELAY_MICROS} slower (the thread waits, as on a slow disk). */
    private static final class SlowStore extends ForwardingStore {
        volatile boolean slow;   // off while preloading

        SlowStore(Store delegate) {
            super(delegate);
        }

        private void delay() {
            if (slow && STORE_DELAY_MICROS > 0) {
                LockSupport.parkNanos(STORE_DELAY_MICROS * 1000);
            }
        }

        @Override
        public byte[] get(byte[] key) {
            delay();
            return delegate.get(key);
        }

        @Override
        public void put(byte[] key, byte[] value) {
            delay();
            delegate.put(key, value);
        }

        @Override
        public void delete(byte[] key) {
            delay();
            delegate.delete(key);
        }
    }
}
