package dev.larder.server.config;

/**
 * What the request path reports as it goes; the metrics layer implements it. Calls come from event-loop and worker
 * threads concurrently and must not block.
 */
public interface ServerObserver {

    /** Does nothing: the server with metrics off. */
    ServerObserver NOOP = new ServerObserver() { };

    /** A response was handed to the connection; {@code route} is a template such as {@code /v0/entity}. */
    default void requestCompleted(String method, String route, int status, long latencyNanos) { }

    /** A request waited this long between acceptance and a worker (or, inline, its event loop) starting it. */
    default void queueWait(long nanos) { }

    /** A worker (or, inline, the event loop) spent this long on a request, from start to handing its response over. */
    default void serviceTime(long nanos) { }

    /**
     * A worker took {@code tasks} queued requests (1 to 16) as one run: its GETs went to storage as one lookup and
     * its writes as one batch. Small runs mean each hand-off is paid by few requests.
     */
    default void workerRun(int tasks) { }

    /**
     * A request ran on its event loop instead of a worker: its iteration read few requests and its worker was idle,
     * so the hand-off would have cost two context switches and bought nothing ({@code --inline-batch}).
     */
    default void ranOnEventLoop() { }

    /**
     * The event loop read a GET the block cache could not answer itself ({@code --miss-reads}); {@code slow}: it took
     * longer than a page-cache read (enough of those send such reads to the workers for a while).
     */
    default void missReadOnLoop(boolean slow) { }

    /** A storage operation ({@code get}, {@code put}, {@code delete}, {@code range}) took this long. */
    default void storageCall(String operation, long nanos, boolean success) { }

    /** A request was answered 503 without touching storage. */
    default void rejected(RejectionMode mode, RejectReason reason) { }

    default void connectionOpened() { }

    default void connectionClosed() { }
}
