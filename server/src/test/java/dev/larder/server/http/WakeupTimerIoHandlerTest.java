package dev.larder.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.TransportKind;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * An idle io_uring loop whose handler blocks with no deadline still runs its scheduled tasks: only the timer thread
 * can wake it (no I/O arrives), so a task that ran proves the wake-up (without it, both task tests fail after 10 s).
 * io_uring is asked for by name: a machine without it fails here rather than testing another transport.
 */
class WakeupTimerIoHandlerTest {

    private static EventLoopGroup ioUringLoop() {
        return new MultiThreadIoEventLoopGroup(1, Transport.select(TransportKind.IO_URING).ioHandlers());
    }

    private static Set<Thread> timerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("larder-loop-timer-") && t.isAlive())
                .collect(Collectors.toSet());
    }

    @Test
    void anIdleLoopRunsItsScheduledTasks() throws Exception {
        EventLoopGroup group = ioUringLoop();
        try {
            CountDownLatch ran = new CountDownLatch(3);
            // Started first, so the loop is blocked (with no deadline) when each task is scheduled.
            group.submit(() -> { }).sync();
            for (int i = 0; i < 3; i++) {
                Thread.sleep(20);
                group.schedule(ran::countDown, 50, TimeUnit.MILLISECONDS);
            }
            assertTrue(ran.await(10, TimeUnit.SECONDS), "scheduled tasks left waiting: " + ran.getCount());
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void anEarlierTaskMovesThePendingWakeupForward() throws Exception {
        EventLoopGroup group = ioUringLoop();
        try {
            AtomicBoolean lateRan = new AtomicBoolean();
            group.schedule(() -> lateRan.set(true), 60, TimeUnit.SECONDS);
            group.submit(() -> { }).sync();
            CountDownLatch early = new CountDownLatch(1);
            group.schedule(early::countDown, 20, TimeUnit.MILLISECONDS);
            assertTrue(early.await(10, TimeUnit.SECONDS), "the earlier task waited for the later wake-up");
            assertFalse(lateRan.get(), "the later task ran early");
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void shutdownEndsTheTimerThread() throws Exception {
        Set<Thread> before = timerThreads();
        EventLoopGroup group = ioUringLoop();
        group.submit(() -> { }).sync();
        Set<Thread> ours = timerThreads();
        ours.removeAll(before);
        assertEquals(1, ours.size(), "timer threads the loop started");
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        for (Thread timer : ours) {
            timer.join(TimeUnit.SECONDS.toMillis(5));
            assertFalse(timer.isAlive(), "the timer thread outlived its loop");
        }
    }
}
