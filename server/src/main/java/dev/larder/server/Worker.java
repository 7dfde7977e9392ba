package dev.larder.server;

import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.RejectedExecutionHandler;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One storage worker thread of the {@link WorkerGroup}: Netty's {@code DefaultEventExecutor} loop over a bounded
 * queue that this class keeps a handle on, so that discard-oldest can take the head and shutdown can answer what is
 * left. ({@code DefaultEventExecutor} is final and hides its queue.)
 *
 * <p>A {@link LinkedBlockingQueue} has separate put and take locks, so the event loops offering work never contend
 * with the worker taking it; only producers contend with each other, and each worker has its own queue.
 */
final class Worker extends SingleThreadEventExecutor {

    private final BlockingQueue<Runnable> queue;
    private volatile boolean running;

    Worker(EventExecutorGroup parent, Executor executor, int capacity, RejectedExecutionHandler rejection) {
        this(parent, executor, new LinkedBlockingQueue<>(capacity), rejection);
    }

    private Worker(EventExecutorGroup parent, Executor executor, BlockingQueue<Runnable> queue,
                   RejectedExecutionHandler rejection) {
        super(parent, executor, true, queue, rejection);
        this.queue = queue;
    }

    @Override
    protected void run() {
        for (;;) {
            Runnable task = takeTask();
            if (task != null) {
                running = true;
                try {
                    runTask(task);
                } finally {
                    running = false;
                }
                updateLastExecutionTime();
            }
            if (confirmShutdown()) {
                break;
            }
        }
    }

    /** Takes the task that has waited longest, or {@code null}. */
    Runnable pollOldest() {
        return queue.poll();
    }

    /** Queues {@code task} without going through rejection; {@code false} when full. */
    boolean offer(Runnable task) {
        return queue.offer(task);
    }

    /** Whether the queue is empty and no task is running (racy; for draining). */
    boolean idle() {
        return queue.isEmpty() && !running;
    }
}
