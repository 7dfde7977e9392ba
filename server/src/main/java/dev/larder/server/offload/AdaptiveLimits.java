package dev.larder.server.offload;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import dev.larder.server.config.LimitAlgorithm;
import java.util.concurrent.TimeUnit;

/** Netflix concurrency-limits' {@link Limit} for each {@link LimitAlgorithm}. */
final class AdaptiveLimits {

    // VegasLimit probes after probeMultiplier x limit samples (as a double): this is more samples than a server sees.
    private static final int NEVER_PROBE = Integer.MAX_VALUE;

    private AdaptiveLimits() {
    }

    /** A fresh limit starting at {@code initialLimit}, between {@code minLimit} and {@code maxLimit} in flight. */
    static Limit create(LimitAlgorithm algorithm, int initialLimit, int minLimit, int maxLimit) {
        return switch (algorithm) {
            // Vegas has no lower bound of its own (it stops at 1); LatencyBudgetFloor is its floor. Its probe is off:
            // a probe takes the RTT of the next answer as the new no-load RTT, and under a sustained overload every
            // answer has queued, so each probe made a loaded RTT look like no queue and the limit climbed 3 to 6
            // above where it was (traced in the harness: probe at 13.7 ms, limit 7 -> 13 -> 14), about every 0.2 s.
            case VEGAS -> VegasLimit.newBuilder().initialLimit(initialLimit).maxConcurrency(maxLimit)
                    .probeMultiplier(NEVER_PROBE).build();
            case GRADIENT2 -> Gradient2Limit.newBuilder().initialLimit(initialLimit).minLimit(minLimit)
                    .maxConcurrency(maxLimit).build();
            // Drops are rare here (the queues are sized to never refuse what the limit admits), so a request slower
            // than 20 ms (the overload target's p99) also counts as one.
            case AIMD -> AIMDLimit.newBuilder().initialLimit(initialLimit).minLimit(minLimit).maxLimit(maxLimit)
                    .timeout(20, TimeUnit.MILLISECONDS).build();
        };
    }
}
