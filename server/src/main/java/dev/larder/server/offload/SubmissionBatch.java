package dev.larder.server.offload;

import io.netty.channel.SingleThreadEventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * Storage work that one event loop produced during one iteration, handed to the workers when the iteration ends
 * instead of request by request. An iteration usually reads requests from many connections; queueing them together
 * means a parked worker is woken once and finds a run of tasks (which it can apply as one write batch) rather than
 * being woken, and switched to, for each. Confined to its event loop's thread.
 *
 * <p>A worker's share of an iteration (at most {@code inlineBatch} tasks) runs here instead when that worker is
 * idle, grouped as the worker would group it ({@link QuickRun}): waking the worker and being woken by its answer
 * costs two context switches per share and the worker would start it no sooner. Only what cannot wait runs here
 * (memory reads, writes no stall holds back, never an fsync); the rest, and every share of a busy worker, is handed
 * over, so slow calls stay off the loop.
 */
final class SubmissionBatch implements Runnable {

    private final SingleThreadEventLoop loop;
    private final BiConsumer<Worker, WorkerTask> submitQuietly;
    private final int inlineBatch;
    private final Predicate<Worker> mayRunInPlaceOf;
    private final Runnable ranOnLoop;
    private final WorkerChoice choice;
    private final QuickRun quickRun = new QuickRun();
    private final List<WorkerTask> share = new ArrayList<>();
    private final List<WorkerTask> left = new ArrayList<>();
    private List<Worker> workers = new ArrayList<>();
    private List<WorkerTask> tasks = new ArrayList<>();
    private List<Worker> spareWorkers = new ArrayList<>();
    private List<WorkerTask> spareTasks = new ArrayList<>();
    private boolean scheduled;

    /**
     * {@code submitQuietly} hands one task over without waking its worker; the batch wakes each worker once, after
     * its whole share is queued. {@code mayRunInPlaceOf} says whether a worker has nothing queued or running (and
     * is not shutting down), so that its share may run here; {@code ranOnLoop} is told of each task that did.
     * {@code choice} places the iteration's GETs, PUTs and DELETEs; other tasks (a range stream's) stay on the worker
     * they were added for.
     */
    SubmissionBatch(SingleThreadEventLoop loop, BiConsumer<Worker, WorkerTask> submitQuietly, int inlineBatch,
                    Predicate<Worker> mayRunInPlaceOf, Runnable ranOnLoop, WorkerChoice choice) {
        this.loop = loop;
        this.submitQuietly = submitQuietly;
        this.inlineBatch = inlineBatch;
        this.mayRunInPlaceOf = mayRunInPlaceOf;
        this.ranOnLoop = ranOnLoop;
        this.choice = choice;
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
        // Running or handing a task over can answer at once (a 503 from a full queue), which starts the connection's
        // next pipelined request and adds it here: new additions go to fresh lists and a new run.
        List<Worker> workers = this.workers;
        List<WorkerTask> tasks = this.tasks;
        this.workers = spareWorkers;
        this.tasks = spareTasks;
        try {
            placeCalls(workers, tasks);
            int n = tasks.size();
            for (int i = 0; i < n; i++) {
                Worker worker = workers.get(i);
                if (worker != null) {
                    serveShare(worker, workers, tasks, i);
                }
            }
        } finally {
            workers.clear();
            tasks.clear();
            spareWorkers = workers;
            spareTasks = tasks;
        }
    }

    /**
     * Points the iteration's batchable calls (GET, PUT, DELETE) at the workers {@link WorkerChoice} picks, a worker's
     * run ({@link Worker#MAX_BATCH}) at a time, or less when no worker has room for a run, so a busy iteration
     * still spreads over several workers.
     */
    private void placeCalls(List<Worker> workers, List<WorkerTask> tasks) {
        int calls = 0;
        for (WorkerTask task : tasks) {
            if (task instanceof BatchableTask) {
                calls++;
            }
        }
        choice.startHandOver();
        Worker target = null;
        int left = 0;
        for (int i = 0; i < tasks.size() && calls > 0; i++) {
            if (tasks.get(i) instanceof BatchableTask) {
                if (left == 0) {
                    target = choice.next(Math.min(Worker.MAX_BATCH, calls));
                    left = choice.granted();
                }
                workers.set(i, target);
                left--;
                calls--;
            }
        }
    }

    /** {@code worker}'s whole share, from index {@code from} on: run here if it may, else queued quietly, one wake-up. */
    private void serveShare(Worker worker, List<Worker> workers, List<WorkerTask> tasks, int from) {
        share.clear();
        for (int j = from; j < tasks.size(); j++) {
            if (workers.get(j) == worker) {
                share.add(tasks.get(j));
                workers.set(j, null);
            }
        }
        List<WorkerTask> handOver = share;
        if (share.size() <= inlineBatch && mayRunInPlaceOf.test(worker)) {
            int ran = quickRun.run(share, left);
            for (int k = 0; k < ran; k++) {
                ranOnLoop.run();
            }
            handOver = left;
        }
        if (handOver.isEmpty()) {
            return;
        }
        try {
            for (WorkerTask task : handOver) {
                submitQuietly.accept(worker, task);
            }
        } finally {
            worker.wakeIfWaiting();
        }
    }
}
