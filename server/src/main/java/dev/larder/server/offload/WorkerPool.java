package dev.larder.server.offload;

import dev.larder.server.config.RejectReason;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.threads.ThreadSlice;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/** The bounded {@link WorkerGroup} behind the {@link Offload} contract. */
final class WorkerPool implements Offload {

    private final WorkerGroup group;
    private final List<Worker> workers = new ArrayList<>();
    private final Map<EventExecutor, SubmissionBatch> batches = new ConcurrentHashMap<>();
    private final ServerObserver observer;
    private final RejectionMode mode;
    private final RejectionPolicy rejection;
    private final int inlineBatch;
    /** Event loops that have asked for a lane so far, and how many there are: each starts its choice elsewhere. */
    private final AtomicInteger loopsSeen = new AtomicInteger();
    private final int loopsHint;
    private volatile boolean draining;

    WorkerPool(ServerOptions options, ServerObserver observer) {
        this.observer = observer;
        this.mode = options.rejection();
        this.inlineBatch = options.inlineBatch();
        this.loopsHint = options.ioThreads();
        this.rejection = new RejectionPolicy(options.rejection(), observer);
        this.group = new WorkerGroup(options.workers(), options.queueSize(), rejection,
                ThreadSlice.of(options.foregroundSlice(), options.fifoForeground()));
        for (EventExecutor executor : group) {
            Worker worker = (Worker) executor;
            // Netty constructs the children inside the group's constructor, so the observer arrives here.
            worker.observe(observer);
            // Netty starts a worker's thread on its first execute(); quiet hand-overs bypass execute(), so start
            // each now.
            worker.execute(() -> { });
            workers.add(worker);
        }
    }

    /**
     * Called on the connection's event loop: the lane submits through that loop's {@link SubmissionBatch}, so work
     * read in one iteration reaches the workers together, its GETs, PUTs and DELETEs on the workers that loop's
     * {@link WorkerChoice} picks. Off an event loop (tests) it submits at once, to the lane's own worker.
     */
    @Override
    public Lane newLane() {
        SubmissionBatch batch = null;
        if (ThreadExecutorMap.currentExecutor() instanceof SingleThreadEventLoop loop) {
            batch = batches.computeIfAbsent(loop, l -> new SubmissionBatch(loop, this::submitQuietly, inlineBatch,
                    this::mayRunInPlaceOf, observer::ranOnEventLoop,
                    new WorkerChoice(workers, loopsSeen.getAndIncrement() * workers.size() / loopsHint)));
        }
        return new WorkerLane((Worker) group.next(), batch);
    }

    /**
     * Like {@link #submitNow} but leaves the worker asleep; the caller wakes it ({@link Worker#wakeIfWaiting()}).
     * A full queue goes through the same {@link RejectionPolicy}; a worker that is shutting down refuses.
     */
    private void submitQuietly(Worker worker, WorkerTask task) {
        if (refusing(worker)) {
            refuseShuttingDown(task);
            return;
        }
        if (!worker.offerQuietly(task)) {
            rejection.rejected(task, worker);
        }
    }

    /**
     * Whether a share of work for {@code worker} may run on the calling event loop instead: the worker has nothing
     * queued or running, so it would start the share no sooner, and a connection has one request at a worker at a
     * time, so its order is kept.
     */
    private boolean mayRunInPlaceOf(Worker worker) {
        return !refusing(worker) && worker.idle();
    }

    /** Draining or the worker shutting down: no new task is handed to it, nor run in its place. */
    private boolean refusing(Worker worker) {
        return draining || worker.isShuttingDown();
    }

    private void submitNow(Worker worker, WorkerTask task) {
        if (draining) {
            refuseShuttingDown(task);
            return;
        }
        try {
            worker.execute(task);
        } catch (RejectedExecutionException e) {
            // Only a terminated worker throws here; a full queue goes through RejectionPolicy.
            refuseShuttingDown(task);
        }
    }

    private void refuseShuttingDown(WorkerTask task) {
        observer.rejected(mode, RejectReason.SHUTTING_DOWN);
        task.reject(RejectReason.SHUTTING_DOWN);
    }

    @Override
    public int[] pendingPerWorker() {
        int[] pending = new int[workers.size()];
        for (int i = 0; i < pending.length; i++) {
            pending[i] = workers.get(i).pendingTasks();
        }
        return pending;
    }

    @Override
    public void drain(Duration timeout) {
        draining = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0 && !allIdle()) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        for (Worker worker : workers) {
            for (Runnable left = worker.pollOldest(); left != null; left = worker.pollOldest()) {
                if (left instanceof WorkerTask task) {
                    refuseShuttingDown(task);
                }
            }
        }
    }

    private boolean allIdle() {
        for (Worker worker : workers) {
            if (!worker.idle()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        draining = true;
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class WorkerLane implements Lane {
        private final Worker worker;
        private final SubmissionBatch batch;

        WorkerLane(Worker worker, SubmissionBatch batch) {
            this.worker = worker;
            this.batch = batch;
        }

        @Override
        public void submit(WorkerTask task) {
            if (batch != null && batch.onItsLoop()) {
                batch.add(worker, task);
            } else {
                submitNow(worker, task);
            }
        }

        @Override
        public void resume(Runnable step) {
            if (!worker.offer(step)) {
                step.run();
            }
        }
    }
}
