package dev.larder.server.offload;

import dev.larder.server.config.RejectReason;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerObserver;
import io.netty.util.concurrent.RejectedExecutionHandler;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Netty calls this when a worker's queue is full; it applies the configured {@link RejectionMode}. Only
 * {@link WorkerTask}s are ever offered to workers by the request path, anything else is refused with an exception.
 */
final class RejectionPolicy implements RejectedExecutionHandler {

    private final RejectionMode mode;
    private final ServerObserver observer;

    RejectionPolicy(RejectionMode mode, ServerObserver observer) {
        this.mode = mode;
        this.observer = observer;
    }

    @Override
    public void rejected(Runnable task, SingleThreadEventExecutor executor) {
        if (!(task instanceof WorkerTask request)) {
            throw new RejectedExecutionException("worker queue is full");
        }
        switch (mode) {
            case ABORT, ADAPTIVE -> {
                observer.rejected(mode, RejectReason.QUEUE_FULL);
                request.reject(RejectReason.QUEUE_FULL);
            }
            case CALLER_RUNS -> request.run();
            case DISCARD_OLDEST -> discardOldest(request, (Worker) executor);
        }
    }

    private void discardOldest(WorkerTask request, Worker worker) {
        Runnable oldest = worker.pollOldest();
        if (oldest instanceof WorkerTask victim) {
            observer.rejected(mode, RejectReason.QUEUE_FULL);
            victim.reject(RejectReason.QUEUE_FULL);
        } else if (oldest != null) {
            // Not a request (Netty housekeeping): it must still run, so it goes back and the newcomer is refused.
            worker.offer(oldest);
        }
        if (!worker.offer(request)) {
            observer.rejected(mode, RejectReason.QUEUE_FULL);
            request.reject(RejectReason.QUEUE_FULL);
        }
    }
}
