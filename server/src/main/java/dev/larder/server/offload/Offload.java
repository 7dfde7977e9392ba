package dev.larder.server.offload;

import dev.larder.server.config.RejectReason;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.time.Duration;

/**
 * Where storage work runs. Each connection takes one {@link Lane} and keeps it. A connection has one request at a
 * worker at a time (its pipelined requests wait in the dispatcher), so its responses stay in order wherever each
 * runs: a range stream's steps stay on the lane's worker (its cursor is confined to it), while GETs, PUTs and
 * DELETEs read in one event-loop iteration go together to the worker the loop picks ({@code WorkerChoice}).
 */
public interface Offload extends AutoCloseable {

    /** A lane for a new connection. */
    Lane newLane();

    /** Pending requests per worker (empty in synchronous mode). */
    int[] pendingPerWorker();

    /** The adaptive concurrency limit now, or -1 when there is none ({@code --rejection} other than adaptive). */
    default int concurrencyLimit() {
        return -1;
    }

    /** Requests holding a permit of the adaptive limit now, or -1 when there is none. */
    default int limitedInFlight() {
        return -1;
    }

    /**
     * Waits up to {@code timeout} for queued and running work to finish, then answers whatever is still queued with
     * 503 ({@link RejectReason#SHUTTING_DOWN}). New work is refused from the moment this is called.
     */
    void drain(Duration timeout);

    /** Stops the worker threads. */
    @Override
    void close();

    /** A connection's way to the workers: its own worker for range streams, its loop's choice for the rest. */
    interface Lane {

        /** Runs {@code task} on this lane, or answers it per the rejection mode when the lane is full. */
        void submit(WorkerTask task);

        /**
         * Runs a continuation of work already accepted (the next batch of a range stream). It is never refused:
         * when the queue is full it runs on the calling thread instead.
         */
        void resume(Runnable step);

        /**
         * The connection handed the response to the last request submitted here (or to one refused before it was
         * submitted) to the client, with this status; on the connection's event loop.
         */
        default void finished(int status) { }
    }

    static Offload create(ServerOptions options, ServerObserver observer) {
        if (options.synchronous()) {
            return new InlineOffload();
        }
        WorkerPool pool = new WorkerPool(options, observer);
        return options.rejection() == RejectionMode.ADAPTIVE
                ? new AdaptiveOffload(pool, AdaptiveLimiter.forOptions(options), observer) : pool;
    }

    /**
     * Runs {@code answer} on {@code eventLoop}, called off it. From a worker the answer waits for the end of the
     * worker's run, so the run's answers reach each event loop in one task.
     *
     * @throws java.util.concurrent.RejectedExecutionException when the event loop has shut down
     */
    static void answerOn(EventExecutor eventLoop, Runnable answer) {
        if (ThreadExecutorMap.currentExecutor() instanceof Worker worker) {
            worker.deliver(eventLoop, answer);
        } else {
            eventLoop.execute(answer);
        }
    }
}
