package dev.larder.server.offload;

import dev.larder.server.config.ServerObserver;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.RejectedExecutionHandler;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One storage worker thread of the {@link WorkerGroup}: Netty's {@code DefaultEventExecutor} loop over a bounded
 * queue that this class keeps a handle on, so that discard-oldest can take the head and shutdown can answer what is
 * left. ({@code DefaultEventExecutor} is final and hides its queue.)
 *
 * <p>Its queue is a {@link RunQueue}, so an event loop can hand over a whole batch before waking it once.
 */
final class Worker extends SingleThreadEventExecutor {

    /** Tasks run back to back before the answers gathered so far are handed to the event loops. */
    static final int MAX_BATCH = 16;

    private final RunQueue queue;
    private final CompletionBatch completions = new CompletionBatch();
    private volatile boolean running;
    /** {@link System#nanoTime()} when the run in progress started; meaningful while {@link #running}. */
    private volatile long runStarted;
    private volatile ServerObserver observer = ServerObserver.NOOP;

    Worker(EventExecutorGroup parent, Executor executor, int capacity, RejectedExecutionHandler rejection) {
        this(parent, executor, new RunQueue(capacity), rejection);
    }

    private Worker(EventExecutorGroup parent, Executor executor, RunQueue queue,
                   RejectedExecutionHandler rejection) {
        super(parent, executor, true, queue, rejection);
        this.queue = queue;
    }

    /**
     * {@code DefaultEventExecutor}'s loop, except that it works on runs of tasks: it takes what is queued (up to
     * {@link #MAX_BATCH}), applies consecutive writes as one storage batch (one log append for all of them), looks
     * up consecutive reads together, and hands the answers of the whole run to the event loops at once: one wake-up
     * of an event loop per run instead of one per request. A run ends when the queue is empty or after
     * {@link #MAX_BATCH} tasks, which bounds the delay this adds to an answer.
     */
    @Override
    protected void run() {
        List<Runnable> run = new ArrayList<>(MAX_BATCH);
        List<BatchableTask> group = new ArrayList<>(MAX_BATCH);
        while (runOnce(run, group)) {
            // The body is a method of its own: this loop runs once per worker thread, so the JIT compiles it only by
            // on-stack replacement, after 60,000 turns. The warm-up's worker runs fell short of that, and the
            // compilation came in the middle of a measured phase, at its first cold reads, in two rounds of three
            // (docs/performance.md, "Session 34"). A method called once per run is compiled by the warm-up.
        }
    }

    /** Takes one run and executes it, then hands its answers back; {@code false} once the worker has shut down. */
    private boolean runOnce(List<Runnable> run, List<BatchableTask> group) {
        Runnable task = takeTask();
        if (task != null) {
            runStarted = System.nanoTime();
            running = true;
            try {
                do {
                    run.add(task);
                } while (run.size() < MAX_BATCH && (task = pollTask()) != null);
                observer.workerRun(run.size());
                execute(run, group);
            } finally {
                run.clear();
                group.clear();
                running = false;
            }
        }
        completions.flush();
        updateLastExecutionTime();
        if (confirmShutdown()) {
            completions.flush();
            return false;
        }
        return true;
    }

    /** Runs {@code run} in order, folding consecutive GETs into one lookup and consecutive writes into one batch. */
    private static void execute(List<Runnable> run, List<BatchableTask> group) {
        for (Runnable task : run) {
            if (task instanceof BatchableTask call) {
                if (!group.isEmpty() && !call.batchesWith(group.get(0))) {
                    flush(group);
                }
                group.add(call);
                continue;
            }
            flush(group);
            safeExecute(task);
        }
        flush(group);
    }

    private static void flush(List<BatchableTask> group) {
        if (group.isEmpty()) {
            return;
        }
        try {
            group.get(0).executeBatch(group);
        } finally {
            group.clear();
        }
    }

    /**
     * Defers {@code answer} to {@code eventLoop} until the end of this worker's current batch. Only the worker's own
     * thread may call this.
     */
    void deliver(io.netty.util.concurrent.EventExecutor eventLoop, Runnable answer) {
        completions.add(eventLoop, answer);
    }

    void observe(ServerObserver observer) {
        this.observer = observer;
    }

    /** Takes the task that has waited longest, or {@code null}. */
    Runnable pollOldest() {
        return queue.poll();
    }

    /**
     * Queues {@code task} without waking the worker and without going through rejection; {@code false} when full.
     * The caller hands over the rest of its batch, then calls {@link #wakeIfWaiting()}.
     */
    boolean offerQuietly(Runnable task) {
        return queue.offerQuietly(task);
    }

    void wakeIfWaiting() {
        queue.wakeIfWaiting();
    }

    /** Queues {@code task} without going through rejection; {@code false} when full. */
    boolean offer(Runnable task) {
        return queue.offer(task);
    }

    /**
     * How long the run in progress has taken so far at {@code now}, or -1 when none is (racy; for
     * {@link WorkerChoice}).
     */
    long runningFor(long now) {
        return running ? now - runStarted : -1;
    }

    /** How many tasks the queue holds at most ({@code --queue-size}). */
    int queueCapacity() {
        return queue.capacity();
    }

    /** Whether the queue is empty and no task is running (racy; for draining). */
    boolean idle() {
        return queue.isEmpty() && !running;
    }
}
