package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.metrics.LarderMeters;
import dev.larder.server.threads.Rescheduler;
import dev.larder.server.threads.ThreadSlice;
import dev.larder.storage.Store;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --reschedule-interval}: the rescheduler wakes at its interval only while the store says its background is
 * at work, asks for the kernel's shortest slice at the nice it is given (19 by default), starts with a server (500 us
 * by default) unless off, and stops with it.
 */
@ExtendWith(LeakDetection.class)
class ReschedulerTest {

    private static final String THREAD_NAME = "larder-rescheduler";

    @TempDir
    Path dir;

    @Test
    void wakesAtTheIntervalOnlyWhileTheBackgroundIsBusy() throws Exception {
        long before = reschedulers();
        AtomicBoolean busy = new AtomicBoolean();
        AtomicInteger checks = new AtomicInteger();
        try (Rescheduler rescheduler = Rescheduler.start(Duration.ofMillis(1), () -> {
            checks.incrementAndGet();
            return busy.get();
        }, ThreadSlice.KERNEL_DEFAULT)) {
            awaitAtLeast(checks::get, 5);
            assertEquals(0, rescheduler.wakeups(), "woke at the interval while the background was idle");

            busy.set(true);
            awaitAtLeast(rescheduler::wakeups, 50);

            busy.set(false);
            long settled = awaitSettled(rescheduler::wakeups);
            Thread.sleep(200);
            assertEquals(settled, rescheduler.wakeups(), "kept waking after the background went idle");
        }
        awaitReschedulers(before, "the thread outlived close()");
    }

    @Test
    void aFailingCheckCountsAsIdleAndTheThreadGoesOn() throws Exception {
        AtomicInteger checks = new AtomicInteger();
        try (Rescheduler rescheduler = Rescheduler.start(Duration.ofMillis(1), () -> {
            if (checks.incrementAndGet() <= 3) {
                throw new IllegalStateException("store closing");
            }
            return true;
        }, ThreadSlice.KERNEL_DEFAULT)) {
            awaitAtLeast(rescheduler::wakeups, 20);
            assertTrue(checks.get() > 3, "checked " + checks.get() + " times");
        }
    }

    @Test
    void itsWakeupsAreAMetricWhileOnAndAbsentWhileOff() throws Exception {
        try (TestServer larder = new TestServer(dir, o -> o.rescheduleInterval(Duration.ofMillis(1)),
                ReschedulerTest::alwaysBusy, ServerObserver.NOOP);
             LarderMeters meters = new LarderMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
            meters.bindServer(larder.server);
            PrometheusMeterRegistry registry = (PrometheusMeterRegistry) meters.registry();
            awaitAtLeast(() -> (long) Exposition.value(registry.scrape(), "larder_rescheduler_wakeups_total")
                    .orElse(-1), 50);
            assertTrue(larder.server.rescheduleWakeups() >= 50, "server reports " + larder.server.rescheduleWakeups());
        }
        try (TestServer larder = new TestServer(dir.resolve("off"), o -> o.rescheduleInterval(Duration.ZERO),
                ReschedulerTest::alwaysBusy, ServerObserver.NOOP);
             LarderMeters meters = new LarderMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
            meters.bindServer(larder.server);
            String scrape = ((PrometheusMeterRegistry) meters.registry()).scrape();
            assertFalse(scrape.contains("larder_rescheduler_wakeups"), "a rescheduler series while off");
            assertEquals(-1, larder.server.rescheduleWakeups());
        }
    }

    private static Store alwaysBusy(Store store) {
        return new ForwardingStore(store) {
            @Override
            public boolean backgroundBusy() {
                return true;
            }
        };
    }

    @Test
    void asksForTheShortestSlice() throws Exception {
        OwnSlice.assumeCustomSlices();
        AtomicLong slice = new AtomicLong(-1);
        try (Rescheduler rescheduler = Rescheduler.start(Duration.ofMillis(1), () -> {
            slice.set(OwnSlice.read());
            return false;
        }, ThreadSlice.of(ServerOptions.MIN_SLICE))) {
            awaitAtLeast(slice::get, 0);
            assertEquals(ServerOptions.MIN_SLICE.toNanos(), slice.get());
        }
    }

    @Test
    void runsAtTheNiceItIsGivenAndAServerGivesItNice19() throws Exception {
        OwnSlice.assumeCustomSlices();
        assumeTrue(OwnSlice.nice() == 0, "the test JVM runs niced");
        AtomicLong nice = new AtomicLong(-1);
        try (Rescheduler rescheduler = Rescheduler.start(Duration.ofMillis(1), () -> {
            nice.set(OwnSlice.nice());
            return false;
        }, ThreadSlice.of(ServerOptions.MIN_SLICE).atNice(7))) {
            awaitAtLeast(nice::get, 0);
            assertEquals(7, nice.get());
        }
        AtomicLong serverNice = new AtomicLong(-1);
        AtomicLong serverSlice = new AtomicLong(-1);
        try (TestServer larder = new TestServer(dir, o -> o, store -> new ForwardingStore(store) {
            @Override
            public boolean backgroundBusy() {
                if (Thread.currentThread().getName().equals(THREAD_NAME)) {
                    serverNice.set(OwnSlice.nice());
                    serverSlice.set(OwnSlice.read());
                }
                return super.backgroundBusy();
            }
        }, ServerObserver.NOOP)) {
            // The rescheduler sets the two one after the other: wait for both, or a preemption between them reads
            // a slice not yet recorded (a CI run saw -1).
            awaitAtLeast(serverNice::get, 0);
            awaitAtLeast(serverSlice::get, 0);
            assertEquals(ServerOptions.DEFAULT_RESCHEDULE_NICE, serverNice.get());
            assertEquals(ServerOptions.MIN_SLICE.toNanos(), serverSlice.get(), "the nice cost it its slice");
            assertTrue(larder.server.describe().contains("reschedule-nice=19"), larder.server.describe());
        }
        assertEquals(0, OwnSlice.nice(), "the test's own thread was reniced");
    }

    @Test
    void aNiceOutsideZeroToNineteenIsRefused() {
        for (int bad : new int[] {-1, 20}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ServerOptions.builder(2).rescheduleNice(bad).build());
            assertTrue(e.getMessage().contains("reschedule-nice"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ThreadSlice.KERNEL_DEFAULT.atNice(bad));
        }
        ServerOptions.builder(2).rescheduleNice(0).build();
        ServerOptions.builder(2).rescheduleNice(19).build();
    }

    @Test
    void aServerStartsOneUnlessOffAndStopsIt() throws Exception {
        long before = reschedulers();
        AtomicInteger asked = new AtomicInteger();
        try (TestServer larder = new TestServer(dir, o -> o.rescheduleInterval(Duration.ofMillis(1)),
                store -> countingBackgroundChecks(store, asked), ServerObserver.NOOP)) {
            awaitAtLeast(asked::get, 3);
            assertEquals(before + 1, reschedulers());
            assertTrue(larder.server.describe().contains("reschedule-interval=1000us"), larder.server.describe());
        }
        awaitReschedulers(before, "the thread outlived the server");

        try (TestServer larder = new TestServer(dir.resolve("default"), o -> o, store -> store, ServerObserver.NOOP)) {
            assertEquals(before + 1, reschedulers(), "not started by default");
            assertTrue(larder.server.describe().contains("reschedule-interval=500us"), larder.server.describe());
        }
        try (TestServer larder = new TestServer(dir.resolve("off"), o -> o.rescheduleInterval(Duration.ZERO),
                store -> store, ServerObserver.NOOP)) {
            awaitReschedulers(before, "started while off"); // the default server's may still be ending
            assertFalse(larder.server.describe().contains("reschedule"), larder.server.describe());
        }
    }

    @Test
    void anIntervalOutsideItsBoundsIsRefused() {
        for (Duration bad : List.of(Duration.ofNanos(99_999), Duration.ofNanos(4_000_001), Duration.ofMillis(-1))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ServerOptions.builder(2).rescheduleInterval(bad).build());
            assertTrue(e.getMessage().contains("reschedule-interval"), e.getMessage());
        }
        ServerOptions.builder(2).rescheduleInterval(ServerOptions.MIN_RESCHEDULE_INTERVAL).build();
        ServerOptions.builder(2).rescheduleInterval(ServerOptions.MAX_RESCHEDULE_INTERVAL).build();
        assertThrows(IllegalArgumentException.class,
                () -> Rescheduler.start(Duration.ZERO, () -> true, ThreadSlice.KERNEL_DEFAULT));
    }

    private static Store countingBackgroundChecks(Store store, AtomicInteger asked) {
        return new ForwardingStore(store) {
            @Override
            public boolean backgroundBusy() {
                asked.incrementAndGet();
                return super.backgroundBusy();
            }
        };
    }

    private static void awaitAtLeast(LongSupplier value, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (value.getAsLong() < atLeast) {
            assertTrue(System.nanoTime() < deadline, "still " + value.getAsLong() + " after 20 s, expected " + atLeast);
            Thread.sleep(5);
        }
    }

    /**
     * Waits until the value stops moving for 500 ms (a burst of wake-ups ends at its next check; a burst whose thread
     * waits 100 ms for a busy core is not over).
     */
    private static long awaitSettled(LongSupplier value) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        long last = value.getAsLong();
        while (true) {
            Thread.sleep(500);
            long now = value.getAsLong();
            if (now == last) {
                return now;
            }
            assertTrue(System.nanoTime() < deadline, "still waking 20 s after the background went idle");
            last = now;
        }
    }

    /**
     * Waits up to 10 s for {@code expected} rescheduler threads: close() waits a second for its thread, which runs at
     * nice 19 and may take longer to end on a busy machine.
     */
    private static void awaitReschedulers(long expected, String message) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (reschedulers() != expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, reschedulers(), message);
    }

    /** Rescheduler threads alive in this JVM (other tests' servers may have their own). */
    private static long reschedulers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && THREAD_NAME.equals(t.getName())).count();
    }
}
