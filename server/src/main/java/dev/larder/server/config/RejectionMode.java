package dev.larder.server.config;

/** What a full worker queue does with one more request. */
public enum RejectionMode {
    /** The new request is answered 503 with {@code Retry-After: 1} at once. */
    ABORT("abort"),
    /** The event loop runs the request itself, so it stops reading: backpressure reaches the clients' sockets. */
    CALLER_RUNS("caller-runs"),
    /** The oldest request waiting on that worker is answered 503 and the new one takes its place in the queue. */
    DISCARD_OLDEST("discard-oldest"),
    /**
     * Requests beyond a concurrency limit learned from their latency ({@link AdaptiveOffload}) are answered 503 with
     * {@code Retry-After: 1} at once; the queues behind the limit are sized never to fill (if they do, as abort).
     */
    ADAPTIVE("adaptive");

    private final String flag;

    RejectionMode(String flag) {
        this.flag = flag;
    }

    /** The spelling used on the command line and in metric tags. */
    public String flag() {
        return flag;
    }
}
