package dev.larder.server.offload;

import dev.larder.server.config.RejectReason;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Synchronous mode ({@code --workers 0}): storage calls run on the event loop that read the request. The baseline
 * the worker pool is compared against; a slow disk read stalls every connection of that loop.
 */
final class InlineOffload implements Offload {

    private final AtomicBoolean draining = new AtomicBoolean();

    private final Lane lane = new Lane() {
        @Override
        public void submit(WorkerTask task) {
            if (draining.get()) {
                task.reject(RejectReason.SHUTTING_DOWN);
            } else {
                task.run();
            }
        }

        @Override
        public void resume(Runnable step) {
            step.run();
        }
    };

    @Override
    public Lane newLane() {
        return lane;
    }

    @Override
    public int[] pendingPerWorker() {
        return new int[0];
    }

    @Override
    public void drain(Duration timeout) {
        draining.set(true);
    }

    @Override
    public void close() {
        draining.set(true);
    }
}
