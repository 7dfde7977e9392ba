package dev.larder.server.offload;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.larder.server.config.LimitAlgorithm;
import dev.larder.server.config.ServerOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.LoggerFactory;

/**
 * The adaptive concurrency limit: how many storage requests may be admitted (queued or running) at once, learned
 * from their latency by a {@link LimitAlgorithm}. A thin owner of the library's {@link SimpleLimiter}: it adds the
 * bounds (a {@link LatencyBudgetFloor} below, the queues' capacity above), the figures the gauges read, and a log
 * line when the limit has moved by more than half since the last one.
 */
final class AdaptiveLimiter {

    /**
     * The floor's budget: half the overload target's p99 (20 ms). Half, because a connection's requests all go to
     * one worker (its lane), so under overload the unluckiest worker holds more than its share of what was admitted:
     * in the overload harness the p99 of the accepted requests was twice their median. A constant of the mechanism,
     * like Vegas's queue of 3 to 6 requests, not a setting.
     */
    static final Duration FLOOR_BUDGET = Duration.ofMillis(10);

    private final SimpleLimiter<Void> limiter;
    private final LatencyBudgetFloor limit;
    private final RateLimitedLog moves;
    private final LimitAlgorithm algorithm;
    // The limit last logged; a move to below half or above one and a half times it is logged again.
    private volatile int logged;

    /**
     * @param budget what the floor allows the admitted requests to take to clear ({@link LatencyBudgetFloor});
     *               {@link Duration#ZERO} for no floor
     * @param clock  nanoseconds, for the RTTs the limit learns from
     */
    AdaptiveLimiter(LimitAlgorithm algorithm, int workers, Duration budget, int initialLimit, int minLimit,
                    int maxLimit, RateLimitedLog moves, LongSupplier clock) {
        this.algorithm = algorithm;
        this.moves = moves;
        this.limit = new LatencyBudgetFloor(AdaptiveLimits.create(algorithm, initialLimit, minLimit, maxLimit),
                workers, budget.toNanos(), minLimit, maxLimit);
        this.logged = limit.getLimit();
        limit.notifyOnChange(this::moved);
        this.limiter = SimpleLimiter.newBuilder().named("larder").limit(limit).nanoClock(clock).build();
    }

    static AdaptiveLimiter forOptions(ServerOptions options) {
        // One request per worker at least; at most what the queues hold, so they never refuse an admitted request.
        // It starts at eight per worker: the limit is learned from answers, so a start at the minimum would refuse
        // the first burst of a server that is idle (a closed-loop prefill on 8 connections did, against 2 workers).
        int min = Math.max(1, options.workers());
        int max = (int) Math.max(min, Math.min(Integer.MAX_VALUE, options.queueCapacity()));
        int initial = (int) Math.min(max, 8L * min);
        return new AdaptiveLimiter(options.limitAlgorithm(), options.workers(), FLOOR_BUDGET, initial, min, max,
                new RateLimitedLog(LoggerFactory.getLogger("dev.larder.adaptive-limit"), 1_000_000_000L),
                System::nanoTime);
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

    /** The floor under the learned limit now (0 before the first answer). */
    int floor() {
        return limit.floor();
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
