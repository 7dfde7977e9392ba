package dev.larder.server.offload;

import java.util.List;

/**
 * A task that a worker may run together with the like tasks queued right behind it, as one storage call: the
 * worker folds each stretch of consecutive tasks that {@link #batchesWith} one another into one
 * {@link #executeBatch} call.
 */
public abstract class BatchableTask extends WorkerTask {

    /** Whether this task may run in one batch with {@code first}, the first task of the batch being gathered. */
    protected abstract boolean batchesWith(BatchableTask first);

    /**
     * Runs {@code batch} (this task first, all of them {@link #batchesWith} this one, in queue order) and answers
     * each; the tasks are not claimed yet.
     */
    protected abstract void executeBatch(List<BatchableTask> batch);

    /**
     * Runs {@code batch} (as for {@link #executeBatch}) on the calling thread if it can finish without waiting, for
     * an event loop, before any of it was handed to anyone: all of it, or none and {@code false}, every task still
     * unclaimed.
     */
    final boolean runBatchIfQuick(List<BatchableTask> batch) {
        for (BatchableTask task : batch) {
            if (!task.claim()) {
                throw new IllegalStateException("a task that was never handed over is claimed");
            }
        }
        if (executeBatchIfQuick(batch)) {
            return true;
        }
        for (BatchableTask task : batch) {
            task.unclaim();
        }
        return false;
    }

    /**
     * Does the work of {@code batch}, claimed by the caller, and answers each, if that needs no waiting; otherwise
     * does nothing and returns {@code false}. This default never can.
     */
    protected boolean executeBatchIfQuick(List<BatchableTask> batch) {
        return false;
    }
}
