package dev.larder.server.offload;

import io.netty.channel.SingleThreadEventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;

/**
 * Storage work that one event loop produced during one iteration, handed to the workers when the iteration ends
 * instead of request by request. An iteration usually reads requests from many connections; queueing them together
 * means a parked worker is woken once and finds a run of tasks (which it can apply as one write batch) rather than
 * being woken, and switched to, for each. Confined to its event loop's thread.
 *
 * <p>An iteration that read only a few requests (at most {@code inlineBatch}) is a loop that is not busy: each of
 * those whose worker is idle runs here instead, because waking the worker and being woken by its answer costs two
 * context switches per request and the worker would start it no sooner. Under load the iterations read more and
 * everything is handed over, so the workers keep batching and keep slow calls off the loop.
 */
final class SubmissionBatch implements Runnable {

    private final SingleThreadEventLoop loop;
    private final BiConsumer<Worker, WorkerTask> submitQuietly;
    private final int inlineBatch;
    private final BiPredicate<Worker, WorkerTask> runIfIdle;
    private List<Worker> workers = new ArrayList<>();
    private List<WorkerTask> tasks = new ArrayList<>();
    private List<Worker> spareWorkers = new ArrayList<>();
    private List<WorkerTask> spareTasks = new ArrayList<>();
    private boolean scheduled;

    /**
     * {@code submitQuietly} hands one task over without waking its worker; the batch wakes each worker once, after
     * its whole share is queued. {@code runIfIdle} runs a task on the calling thread if its worker has nothing queued
     * or running, and says whether it did.
     */
    SubmissionBatch(SingleThreadEventLoop loop, BiConsumer<Worker, WorkerTask> submitQuietly, int inlineBatch,
                    BiPredicate<Worker, WorkerTask> runIfIdle) {
        this.loop = loop;
        this.submitQuietly = submitQuietly;
        this.inlineBatch = inlineBatch;
        this.runIfIdle = runIfIdle;
    }

    boolean onItsLoop() {
        return loop.inEventLoop();
    }

    /** Queues {@code task} for {@code worker} at the end of the current iteration; call on the loop's thread. */
    void add(Worker worker, WorkerTask task) {
        if (!scheduled) {
            try {
                loop.executeAfterEventLoopIteration(this);
                scheduled = true;
            } catch (RejectedExecutionException e) {
                // The loop is shutting down and will not run another iteration: hand it over now.
                try {
                    submitQuietly.accept(worker, task);
                } finally {
                    worker.wakeIfWaiting();
                }
                return;
            }
        }
        workers.add(worker);
        tasks.add(task);
    }

    @Override
    public void run() {
        scheduled = false;
        // Handing a task over can answer at once (a 503 from a full queue), which starts the connection's next
        // pipelined request and adds it here: new additions go to fresh lists and a new run.
        List<Worker> workers = this.workers;
        List<WorkerTask> tasks = this.tasks;
        this.workers = spareWorkers;
        this.tasks = spareTasks;
        try {
            // Worker by worker: its whole share queued quietly, then one wake-up.
            int n = tasks.size();
            if (n <= inlineBatch) {
                for (int i = 0; i < n; i++) {
                    if (runIfIdle.test(workers.get(i), tasks.get(i))) {
                        workers.set(i, null);
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                Worker worker = workers.get(i);
                if (worker == null) {
                    continue;
                }
                try {
                    for (int j = i; j < n; j++) {
                        if (workers.get(j) == worker) {
                            submitQuietly.accept(worker, tasks.get(j));
                            workers.set(j, null);
                        }
                    }
                } finally {
                    worker.wakeIfWaiting();
                }
            }
        } finally {
            workers.clear();
            tasks.clear();
            spareWorkers = workers;
            spareTasks = tasks;
        }
    }
}
