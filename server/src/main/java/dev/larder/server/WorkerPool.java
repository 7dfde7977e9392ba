package dev.larder.server;

import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** The bounded {@link WorkerGroup} behind the {@link Offload} contract. */
final class WorkerPool implements Offload {

    private final WorkerGroup group;
    private final List<Worker> workers = new ArrayList<>();
    private final ServerObserver observer;
    private final RejectionMode mode;
    private volatile boolean draining;

    WorkerPool(ServerOptions options, ServerObserver observer) {
        this.observer = observer;
        this.mode = options.rejection();
        this.group = new WorkerGroup(options.workers(), options.queueSize(),
                new RejectionPolicy(options.rejection(), observer));
        for (EventExecutor executor : group) {
            workers.add((Worker) executor);
        }
    }

    @Override
    public Lane newLane() {
        return new WorkerLane((Worker) group.next());
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
                    observer.rejected(mode, RejectReason.SHUTTING_DOWN);
                    task.reject(RejectReason.SHUTTING_DOWN);
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

        WorkerLane(Worker worker) {
            this.worker = worker;
        }

        @Override
        public void submit(WorkerTask task) {
            if (draining) {
                observer.rejected(mode, RejectReason.SHUTTING_DOWN);
                task.reject(RejectReason.SHUTTING_DOWN);
                return;
            }
            try {
                worker.execute(task);
            } catch (RejectedExecutionException e) {
                // Only a terminated worker throws here; a full queue goes through RejectionPolicy.
                observer.rejected(mode, RejectReason.SHUTTING_DOWN);
                task.reject(RejectReason.SHUTTING_DOWN);
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
