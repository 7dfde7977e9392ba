package dev.larder.server.offload;

import com.netflix.concurrency.limits.Limiter;
import dev.larder.server.config.RejectReason;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerObserver;
import java.time.Duration;

/**
 * {@code --rejection adaptive}: the worker pool behind an {@link AdaptiveLimiter}. A request is admitted only while
 * fewer than the learned limit are queued or running; otherwise it is answered 503 + {@code Retry-After} at once, on
 * the event loop, without reaching a queue. The permit is released when the response is handed to the connection,
 * so the latency the limit learns from is the whole wait plus service the client sees, less the network.
 *
 * <p>Only entity calls (the {@link BatchableTask}s) are limited. Range streams are not: they hold a worker for as long as the client reads, which says nothing about
 * the storage's latency, and they are still bounded by the queues behind the limit.
 */
final class AdaptiveOffload implements Offload {

    private final Offload workers;
    private final AdaptiveLimiter limiter;
    private final ServerObserver observer;

    AdaptiveOffload(Offload workers, AdaptiveLimiter limiter, ServerObserver observer) {
        this.workers = workers;
        this.limiter = limiter;
        this.observer = observer;
    }

    @Override
    public Lane newLane() {
        return new LimitedLane(workers.newLane());
    }

    @Override
    public int[] pendingPerWorker() {
        return workers.pendingPerWorker();
    }

    @Override
    public int concurrencyLimit() {
        return limiter.limit();
    }

    @Override
    public int limitedInFlight() {
        return limiter.inFlight();
    }

    @Override
    public void drain(Duration timeout) {
        workers.drain(timeout);
    }

    @Override
    public void close() {
        workers.close();
    }

    /**
     * One connection's lane. A connection serves one request at a time (RequestDispatcher), so a lane holds at most
     * one permit, and both ends run on the connection's event loop.
     */
    private final class LimitedLane implements Lane {
        private final Lane lane;
        private Limiter.Listener permit;

        LimitedLane(Lane lane) {
            this.lane = lane;
        }

        @Override
        public void submit(WorkerTask task) {
            if (!(task instanceof BatchableTask)) {
                lane.submit(task);
                return;
            }
            Limiter.Listener granted = limiter.tryAcquire();
            if (granted == null) {
                observer.rejected(RejectionMode.ADAPTIVE, RejectReason.OVER_LIMIT);
                task.reject(RejectReason.OVER_LIMIT);
                return;
            }
            // Set before submitting: a refusal further down can answer (and call finished) before submit returns.
            permit = granted;
            lane.submit(task);
        }

        @Override
        public void resume(Runnable step) {
            lane.resume(step);
        }

        @Override
        public void finished(int status) {
            Limiter.Listener done = permit;
            if (done == null) {
                return;
            }
            permit = null;
            // A 503 from behind the limit (queue full, too long a wait, shutdown) is the overload signal; any other
            // answer, 500 included, measured the storage's latency.
            if (status == 503) {
                done.onDropped();
            } else {
                done.onSuccess();
            }
        }
    }
}
