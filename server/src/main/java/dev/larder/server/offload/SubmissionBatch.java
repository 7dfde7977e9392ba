package dev.larder.server.offload;

import io.netty.channel.SingleThreadEventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

/**
 * Storage work that one event loop produced during one iteration, handed to the workers when the iteration ends
 * instead of request by request. An iteration usually reads requests from many connections; queueing them together
 * means a parked worker is woken once and finds a run of tasks (which it can apply as one write batch) rather than
 * being woken, and switched to, for each. Confined to its event loop's thread.
 */
final class SubmissionBatch implements Runnable {

    private final SingleThreadEventLoop loop;
    private final BiConsumer<Worker, WorkerTask> submitQuietly;
    private List<Worker> workers = new ArrayList<>();
    private List<WorkerTask> tasks = new ArrayList<>();
    private List<Worker> spareWorkers = new ArrayList<>();
    private List<WorkerTask> spareTasks = new ArrayList<>();
    private boolean scheduled;

    /**
     * {@code submitQuietly} hands one task over without waking its worker; the batch wakes each worker once, after
     * its whole share is queued.
     */
    SubmissionBatch(SingleThreadEventLoop loop, BiConsumer<Worker, WorkerTask> submitQuietly) {
        this.loop = loop;
        this.submitQuietly = submitQuietly;
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
