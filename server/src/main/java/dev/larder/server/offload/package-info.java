/**
 * Where storage work runs: the bounded worker pool (one {@link dev.larder.server.offload.Worker} thread and one
 * bounded run queue each), the hand-over of an event-loop iteration's requests in one batch and of a run's
 * answers in one task per event loop, what a full queue does (the rejection modes), the adaptive concurrency limit
 * in front of the pool ({@code --rejection adaptive}: Netflix concurrency-limits), the rate-limited log lines these
 * write, and the inline mode ({@code --workers 0}). It knows tasks, not what they do: {@link dev.larder.server.offload.WorkerTask} and
 * {@link dev.larder.server.offload.BatchableTask} are the contract.
 *
 * <p>May depend on {@code config}, {@code threads} (the workers' time slice), Netty's executors and concurrency-limits only; not on storage, not on HTTP.
 */
package dev.larder.server.offload;
