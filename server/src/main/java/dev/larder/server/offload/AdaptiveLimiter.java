package dev.larder.server.offload;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.larder.server.config.LimitAlgorithm;
import dev.larder.server.config.ServerOptions;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * The adaptive concurrency limit: how many storage requests may be admitted (queued or running) at once, learned
 * from their latency by a {@link LimitAlgorithm}. A thin owner of the library's {@link SimpleLimiter}: it adds the
 * bounds, the figures the gauges read, and a log line when the limit has moved by more than half since the last one.
 */
final class AdaptiveLimiter {

    private final SimpleLimiter<Void> limiter;
    private final RateLimitedLog moves;
    private final LimitAlgorithm algorithm;
    // The limit last logged; a move to below half or above one and a half times it is logged again.
    private volatile int logged;

    AdaptiveLimiter(LimitAlgorithm algorithm, int initialLimit, int minLimit, int maxLimit, RateLimitedLog moves) {
        this.algorithm = algorithm;
        this.moves = moves;
        com.netflix.concurrency.limits.Limit limit = AdaptiveLimits.create(algorithm, initialLimit, minLimit, maxLimit);
        this.logged = limit.getLimit();
        limit.notifyOnChange(this::moved);
        this.limiter = SimpleLimiter.newBuilder().named("larder").limit(limit).build();
    }

    static AdaptiveLimiter forOptions(ServerOptions options) {
        // One request per worker at least; at most what the queues hold, so they never refuse an admitted request.
        // It starts at eight per worker: the limit is learned from answers, so a start at the minimum would refuse
        // the first burst of a server that is idle (a closed-loop prefill on 8 connections did, against 2 workers).
        int min = Math.max(1, options.workers());
        int max = (int) Math.max(min, Math.min(Integer.MAX_VALUE, options.queueCapacity()));
        int initial = (int) Math.min(max, 8L * min);
        return new AdaptiveLimiter(options.limitAlgorithm(), initial, min, max,
                new RateLimitedLog(LoggerFactory.getLogger("dev.larder.adaptive-limit"), 1_000_000_000L));
    }

    /** A permit to release with the request's outcome, or {@code null} when the limit is reached. */
    Limiter.Listener tryAcquire() {
        Optional<Limiter.Listener> permit = limiter.acquire(null);
        return permit.orElse(null);
    }

    int limit() {
        return limiter.getLimit();
    }

    int inFlight() {
        return limiter.getInflight();
    }

    private void moved(int limit) {
        int last = logged;
        if (2 * limit < last || 2 * limit > 3 * last) {
            logged = limit;
            moves.info("adaptive limit (" + algorithm.flag() + ") moved from " + last + " to " + limit
                    + " requests in flight; " + inFlight() + " in flight now");
        }
    }
}
