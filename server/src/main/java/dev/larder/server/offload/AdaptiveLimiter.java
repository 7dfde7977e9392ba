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
     * The floor's budget under overload (from a refusal on): a little under half the overload target's p99 (20 ms).
     * Under half, because a connection's requests all go to one worker (its lane), so the unluckiest worker holds more
     * than its share of what was admitted: in the overload harness the p99 of the accepted requests was about twice
     * the budget (19.2-20.2 ms with 10, 17.4-17.9 ms with 9; docs/reliability.md). A constant of the mechanism, like
     * Vegas's queue of 3 to 6 requests, not a setting.
     */
    static final Duration OVERLOAD_BUDGET = Duration.ofMillis(9);
    /**
     * The floor's budget under light load (before the first refusal, and a second after the last one): the whole
     * target, since nothing queues for long then and the floor is only there so that a burst is not refused.
     */
    static final Duration LIGHT_LOAD_BUDGET = Duration.ofMillis(20);
    /** How long after a refusal the overload budget stays: an overload refuses many times a second. */
    static final Duration OVERLOAD_HOLD = Duration.ofSeconds(1);

    private final SimpleLimiter<Void> limiter;
    private final LongSupplier clock;
    private final LatencyBudgetFloor limit;
    private final RateLimitedLog moves;
    private final LimitAlgorithm algorithm;
    // The limit last logged; a move to below half or above one and a half times it is logged again.
    private volatile int logged;

    /**
     * @param budgets what the floor allows the admitted requests to take to clear ({@link LatencyBudgetFloor});
     *                {@link FloorBudgets#NONE} for no floor
     * @param clock   nanoseconds, for the RTTs the limit learns from and the time of refusals
     */
    AdaptiveLimiter(LimitAlgorithm algorithm, int workers, FloorBudgets budgets, int initialLimit, int minLimit,
                    int maxLimit, RateLimitedLog moves, LongSupplier clock) {
        this.algorithm = algorithm;
        this.moves = moves;
        this.clock = clock;
        this.limit = new LatencyBudgetFloor(AdaptiveLimits.create(algorithm, initialLimit, minLimit, maxLimit),
                workers, budgets.light().toNanos(), budgets.overload().toNanos(), budgets.hold().toNanos(),
                minLimit, maxLimit);
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
        return new AdaptiveLimiter(options.limitAlgorithm(), options.workers(), FloorBudgets.DEFAULT, initial, min,
                max, new RateLimitedLog(LoggerFactory.getLogger("dev.larder.adaptive-limit"), 1_000_000_000L),
                System::nanoTime);
    }

    /** A permit to release with the request's outcome, or {@code null} when the limit is reached. */
    Limiter.Listener tryAcquire() {
        Optional<Limiter.Listener> permit = limiter.acquire(null);
        // After a quiet spell the overload budget may be stale (nothing answered since to move it back): then the
        // floor goes back to the light-load budget and the request asks once more.
        if (permit.isEmpty() && limit.refused(clock.getAsLong())) {
            permit = limiter.acquire(null);
            if (permit.isEmpty()) {
                limit.refused(clock.getAsLong());
            }
        }
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

    /** Whether the floor has its overload budget now (a refusal within the last {@link #OVERLOAD_HOLD}). */
    boolean overloaded() {
        return limit.overloaded();
    }

    /**
     * The floor's two budgets and how long the overload one holds after a refusal ({@link LatencyBudgetFloor}).
     */
    record FloorBudgets(Duration light, Duration overload, Duration hold) {
        static final FloorBudgets DEFAULT = new FloorBudgets(LIGHT_LOAD_BUDGET, OVERLOAD_BUDGET, OVERLOAD_HOLD);
        static final FloorBudgets NONE = new FloorBudgets(Duration.ZERO, Duration.ZERO, Duration.ZERO);
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
