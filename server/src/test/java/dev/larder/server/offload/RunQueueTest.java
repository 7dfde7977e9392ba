package dev.larder.server.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class RunQueueTest {

    private final Runnable a = () -> { };
    private final Runnable b = () -> { };
    private final Runnable c = () -> { };

    @Test
    void isBoundedAndFifoWhicheverWayTasksArrive() {
        RunQueue queue = new RunQueue(2);
        assertTrue(queue.offerQuietly(a));
        assertTrue(queue.offer(b));
        assertFalse(queue.offerQuietly(c));
        assertFalse(queue.offer(c));
        assertEquals(2, queue.size());
        assertEquals(0, queue.remainingCapacity());
        assertSame(a, queue.poll());
        assertSame(b, queue.peek());
        assertTrue(queue.remove(b));
        assertNull(queue.poll());
    }

    @Test
    void quietOffersLeaveTheTakerAsleepUntilOneWakeUp() throws Exception {
        RunQueue queue = new RunQueue(16);
        CompletableFuture<List<Runnable>> taken = CompletableFuture.supplyAsync(() -> {
            try {
                List<Runnable> run = new ArrayList<>();
                run.add(queue.take());
                queue.drainTo(run);
                return run;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitWaiting(queue);
        queue.offerQuietly(a);
        queue.offerQuietly(b);
        queue.offerQuietly(c);
        // Not woken by the quiet offers: it is still waiting (a signalling offer would have let it finish).
        try {
            taken.get(300, TimeUnit.MILLISECONDS);
            throw new AssertionError("a quiet offer woke the taker");
        } catch (TimeoutException expected) {
            // still asleep
        }
        queue.wakeIfWaiting();
        assertEquals(List.of(a, b, c), taken.get(10, TimeUnit.SECONDS), "one wake-up, the whole batch as one run");
    }

    @Test
    void aPlainOfferWakesTheTaker() throws Exception {
        RunQueue queue = new RunQueue(16);
        CompletableFuture<Runnable> taken = CompletableFuture.supplyAsync(() -> {
            try {
                return queue.take();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitWaiting(queue);
        queue.offer(a);
        assertSame(a, taken.get(10, TimeUnit.SECONDS));
        assertNull(queue.poll(10, TimeUnit.MILLISECONDS));
    }

    /** Waits until a thread is parked in take(). */
    private static void awaitWaiting(RunQueue queue) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!queue.hasWaiters()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("taker never waited");
            }
            Thread.sleep(1);
        }
    }
}
