package dev.larder.server.config;

/**
 * Which of Netflix concurrency-limits' algorithms learns the adaptive limit ({@code --rejection adaptive}); the
 * offload package builds the library's limit from it ({@code AdaptiveLimits}). Each is bounded below by one request
 * per worker (fewer would leave a worker idle) and above by what the worker queues hold (so the queues themselves
 * never refuse). Everything else is the library's default: no latency target is set by hand, except for AIMD, which
 * has no other signal.
 */
public enum LimitAlgorithm {
    /**
     * TCP Vegas: estimates the queue as {@code limit x (1 - minRtt / rtt)} and keeps it between 3 and 6 requests.
     * The default, chosen by measurement (docs/reliability.md, "Adaptive limit").
     */
    VEGAS("vegas"),
    /** Gradient2: scales the limit by long-term over short-term RTT, plus a headroom of 4. */
    GRADIENT2("gradient2"),
    /**
     * Additive increase, multiplicative decrease on a drop; a request slower than 20 ms (the overload target's p99)
     * also counts as one, since the queues are sized never to refuse what the limit admits.
     */
    AIMD("aimd");

    private final String flag;

    LimitAlgorithm(String flag) {
        this.flag = flag;
    }

    /** The spelling used on the command line. */
    public String flag() {
        return flag;
    }
}
