package dev.larder.server.config;

/** Why a request was answered 503 without touching storage. */
public enum RejectReason {
    QUEUE_FULL("queue_full", "worker queue is full"),
    QUEUE_DELAY("queue_delay", "request waited longer than --max-queue-delay"),
    SHUTTING_DOWN("shutting_down", "server is shutting down"),
    OVER_LIMIT("over_limit", "over the adaptive concurrency limit");

    private final String tag;
    private final String message;

    RejectReason(String tag, String message) {
        this.tag = tag;
        this.message = message;
    }

    /** Metric tag value. */
    public String tag() {
        return tag;
    }

    /** One line for the 503 body. */
    public String message() {
        return message;
    }
}
