package dev.larder.server.offload;

import dev.larder.server.config.RejectReason;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A unit of storage work that ends in exactly one answer: either {@link #run()} executes it or {@link #reject}
 * answers 503, whichever claims it first. Discard-oldest and shutdown can reach a task the worker is about to take,
 * so the claim is atomic.
 */
public abstract class WorkerTask implements Runnable {

    private static final AtomicIntegerFieldUpdater<WorkerTask> CLAIMED =
            AtomicIntegerFieldUpdater.newUpdater(WorkerTask.class, "claimed");

    private volatile int claimed;

    @Override
    public final void run() {
        if (claim()) {
            execute();
        }
    }

    /**
     * Runs the task on the calling thread if it can finish without waiting ({@link #executeIfQuick}), for a caller
     * that must not block (an event loop, before the task was handed to anyone). {@code false}: it did not run and
     * is still unclaimed, to be handed over as usual.
     */
    public final boolean runIfQuick() {
        if (!claim()) {
            return true;
        }
        if (executeIfQuick()) {
            return true;
        }
        unclaim();
        return false;
    }

    /**
     * Gives back a claim taken on a task nobody else has seen yet (it was never queued), so it races with no one;
     * for the quick paths that claimed it, found it cannot finish without waiting, and leave it to be handed over.
     */
    final void unclaim() {
        claimed = 0;
    }

    /**
     * Does the work and answers if that needs no waiting (no disk read, no stalled write, no fsync); otherwise does
     * nothing and returns {@code false}. This default never can.
     */
    protected boolean executeIfQuick() {
        return false;
    }

    /**
     * Takes the task for running by other means than {@link #run()} (a worker applying several writes as one
     * batch); {@code false} when it was already run or rejected. Whoever claims it must answer it.
     */
    protected final boolean claim() {
        return CLAIMED.compareAndSet(this, 0, 1);
    }

    /** Answers 503 for {@code reason} unless the task already ran or was rejected. */
    public final void reject(RejectReason reason) {
        if (claim()) {
            rejected(reason);
        }
    }

    /** Does the work and answers; runs on a worker, or on the event loop in synchronous and caller-runs modes. */
    protected abstract void execute();

    /** Answers 503; may run on any thread. */
    protected abstract void rejected(RejectReason reason);
}
