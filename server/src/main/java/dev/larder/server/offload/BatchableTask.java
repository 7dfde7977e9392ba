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
}
