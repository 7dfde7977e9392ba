package dev.larder.server;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import java.util.concurrent.TimeUnit;

/**
 * Which of Netflix concurrency-limits' algorithms learns the adaptive limit ({@code --rejection adaptive}). Each is
 * bounded below by one request per worker (fewer would leave a worker idle) and above by what the worker queues hold
 * (so the queues themselves never refuse). Everything else is the library's default: no latency target is set by
 * hand, except for AIMD, which has no other signal (see {@link #AIMD}).
 */
public enum LimitAlgorithm {
    /**
     * TCP Vegas: estimates the queue as {@code limit x (1 - minRtt / rtt)} and keeps it between 3 and 6 requests.
     * The default, chosen by measurement (docs/reliability.md, "Adaptive limit").
     */
    VEGAS("vegas") {
        @Override
        Limit create(int initialLimit, int minLimit, int maxLimit) {
            // Vegas has no lower bound of its own (it stops at 1); with fewer in flight than workers its RTT is the
            // bare service time, so it climbs back at once.
            return VegasLimit.newBuilder().initialLimit(initialLimit).maxConcurrency(maxLimit).build();
        }
    },
    /** Gradient2: scales the limit by long-term over short-term RTT, plus a headroom of 4. */
    GRADIENT2("gradient2") {
        @Override
        Limit create(int initialLimit, int minLimit, int maxLimit) {
            return Gradient2Limit.newBuilder().initialLimit(initialLimit).minLimit(minLimit)
                    .maxConcurrency(maxLimit).build();
        }
    },
    /**
     * Additive increase, multiplicative decrease on a drop. Drops are rare here (the queues are sized to never refuse
     * what the limit admits), so a request slower than 20 ms (the overload target's p99) also counts as one.
     */
    AIMD("aimd") {
        @Override
        Limit create(int initialLimit, int minLimit, int maxLimit) {
            return AIMDLimit.newBuilder().initialLimit(initialLimit).minLimit(minLimit).maxLimit(maxLimit)
                    .timeout(20, TimeUnit.MILLISECONDS).build();
        }
    };

    private final String flag;

    LimitAlgorithm(String flag) {
        this.flag = flag;
    }

    /** A fresh limit starting at {@code initialLimit}, between {@code minLimit} and {@code maxLimit} in flight. */
    abstract Limit create(int initialLimit, int minLimit, int maxLimit);

    /** The spelling used on the command line. */
    public String flag() {
        return flag;
    }

    public static LimitAlgorithm fromFlag(String value) {
        for (LimitAlgorithm algorithm : values()) {
            if (algorithm.flag.equalsIgnoreCase(value) || algorithm.name().equalsIgnoreCase(value)) {
                return algorithm;
            }
        }
        throw new IllegalArgumentException("expected one of vegas, gradient2, aimd but was '" + value + "'");
    }
}
