package dev.larder.server.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.threads.ThreadSlice;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link WorkerChoice} on real workers: which one it picks, given what each has queued and is running. */
class WorkerChoiceUnitTest {

    private WorkerGroup group;
    private final List<Worker> workers = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void start() {
        group = new WorkerGroup(3, 16, new RejectionPolicy(RejectionMode.ABORT, ServerObserver.NOOP),
                ThreadSlice.KERNEL_DEFAULT);
        for (EventExecutor executor : group) {
            workers.add((Worker) executor);
        }
    }

    @AfterEach
    void stop() {
        release.countDown();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Puts {@code worker} in a run that lasts until the test ends, and waits until it counts as held up. */
    private void holdUp(Worker worker) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        worker.execute(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(started.await(10, TimeUnit.SECONDS));
        while (worker.runningFor(System.nanoTime()) < WorkerChoice.HELD_UP) {
            Thread.sleep(1);
        }
    }

    @Test
    void idleWorkersGiveEveryHandOverToTheLoopsFirst() {
        WorkerChoice choice = new WorkerChoice(workers, 1);
        for (int i = 0; i < 5; i++) {
            choice.startHandOver();
            assertSame(workers.get(1), choice.next(3), "hand-over " + i);
        }
    }

    @Test
    void aBusyIterationSpreadsItsStretchesInTheLoopsOrder() {
        WorkerChoice choice = new WorkerChoice(workers, 2);
        choice.startHandOver();
        assertSame(workers.get(2), choice.next(Worker.MAX_BATCH));
        assertSame(workers.get(0), choice.next(Worker.MAX_BATCH));
        assertSame(workers.get(1), choice.next(Worker.MAX_BATCH));
        assertSame(workers.get(2), choice.next(4), "all placed on: the fewest first, in order");
    }

    @Test
    void aWorkerHeldUpInItsRunIsPassedOverThoughItsQueueIsEmpty() throws Exception {
        holdUp(workers.get(0));
        WorkerChoice choice = new WorkerChoice(workers, 0);
        choice.startHandOver();
        assertSame(workers.get(1), choice.next(1));
    }

    @Test
    void withEveryWorkerBusyTheFewestQueuedWins() throws Exception {
        for (Worker worker : workers) {
            holdUp(worker);
        }
        for (int i = 0; i < 3; i++) {
            assertTrue(workers.get(0).offerQuietly(() -> { }));
        }
        assertTrue(workers.get(1).offerQuietly(() -> { }));
        WorkerChoice choice = new WorkerChoice(workers, 0);
        choice.startHandOver();
        assertSame(workers.get(2), choice.next(2), "nothing queued, though held up");
        assertSame(workers.get(1), choice.next(2), "1 queued against 3 and 2 placed");
    }

    @Test
    void aWorkerThatIsOnlyBusyIsPreferredToOneHeldUpWithLessQueued() throws Exception {
        holdUp(workers.get(0));
        holdUp(workers.get(2));
        queue(workers.get(1), 2);
        WorkerChoice choice = new WorkerChoice(workers, 0);
        choice.startHandOver();
        assertSame(workers.get(1), choice.next(4), "2 queued and not held up, against 0 queued behind a held-up run");
        assertEquals(4, choice.granted());
    }

    @Test
    void withNoRoomForAWholeStretchItIsCutToTheRoomiestWorkersRoom() throws Exception {
        holdUp(workers.get(0));
        holdUp(workers.get(1));
        holdUp(workers.get(2));
        queue(workers.get(0), 10);
        queue(workers.get(1), 12);
        queue(workers.get(2), 14);
        WorkerChoice choice = new WorkerChoice(workers, 0);
        choice.startHandOver();
        assertSame(workers.get(0), choice.next(16));
        assertEquals(6, choice.granted(), "room left in a queue of 16 holding 10");
        assertSame(workers.get(1), choice.next(10));
        assertEquals(4, choice.granted());
        assertSame(workers.get(2), choice.next(6));
        assertEquals(2, choice.granted());
        assertSame(workers.get(0), choice.next(4), "no room anywhere: whole, to the fewest queued");
        assertEquals(4, choice.granted());
    }

    /** Queues {@code n} tasks on {@code worker} without waking it, so they stay queued while it is held up. */
    private static void queue(Worker worker, int n) {
        for (int i = 0; i < n; i++) {
            assertTrue(worker.offerQuietly(() -> { }));
        }
        assertEquals(n, worker.pendingTasks());
    }
}
