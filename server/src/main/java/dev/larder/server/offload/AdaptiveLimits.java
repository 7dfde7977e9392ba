package dev.larder.server.offload;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import dev.larder.server.config.LimitAlgorithm;
import java.util.concurrent.TimeUnit;

/** Netflix concurrency-limits' {@link Limit} for each {@link LimitAlgorithm}. */
final class AdaptiveLimits {

    private AdaptiveLimits() {
    }

    /** A fresh limit starting at {@code initialLimit}, between {@code minLimit} and {@code maxLimit} in flight. */
    static Limit create(LimitAlgorithm algorithm, int initialLimit, int minLimit, int maxLimit) {
        return switch (algorithm) {
            // Vegas has no lower bound of its own (it stops at 1); with fewer in flight than workers its RTT is the
            // bare service time, so it climbs back at once.
            case VEGAS -> VegasLimit.newBuilder().initialLimit(initialLimit).maxConcurrency(maxLimit).build();
            case GRADIENT2 -> Gradient2Limit.newBuilder().initialLimit(initialLimit).minLimit(minLimit)
                    .maxConcurrency(maxLimit).build();
            // Drops are rare here (the queues are sized to never refuse what the limit admits), so a request slower
            // than 20 ms (the overload target's p99) also counts as one.
            case AIMD -> AIMDLimit.newBuilder().initialLimit(initialLimit).minLimit(minLimit).maxLimit(maxLimit)
                    .timeout(20, TimeUnit.MILLISECONDS).build();
        };
    }
}
