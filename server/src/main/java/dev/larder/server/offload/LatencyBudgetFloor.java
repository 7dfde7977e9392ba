package dev.larder.server.offload;

import com.netflix.concurrency.limits.Limit;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A floor under a learned limit: never fewer in flight than the workers can clear within a latency budget,
 * {@code floor(workers x budget / noLoadRtt)} (Little's law). Refusing below that line cannot bring the wait under the budget, it
 * only turns away work the server would have finished in time; that is what the library's algorithms do when the
 * whole RTT is small and its jitter is large in proportion (0.2 to 0.8 ms looks like a queue of three quarters of the
 * limit to Vegas), or when a limit learned under overload is still in force when the load drops.
 *
 * <p>Two budgets, by whether the limit has refused anything lately. Under a sustained overload the floor is what
 * holds the limit (Vegas's own estimate sits below it), so its budget sets the accepted requests' wait: with 10 ms
 * their p99 was 19.2-20.2 ms against a target of 20 in the overload harness, with 9 ms 17.4-17.9 ms. Under light
 * load the limit only matters for bursts, and a lower floor let one through to a refusal at 50% load (a burst of
 * 15 while Vegas sat at 7-15; docs/reliability.md). So until a request has been refused, and again once none has
 * been for {@code overloadHoldNanos}, the floor allows the light-load budget; from a refusal on, the overload budget.
 * Once in force, the overload budget is renewed only by refusals made while the admitted requests are waiting: the
 * median RTT of the last {@value #ANSWERS} answers at least halfway from the no-load RTT to the overload budget. Under
 * an overload the floor holds them near the whole budget; after it, at half load, they are near the no-load RTT, and
 * the bursts such a load brings now and then overflow the overload floor. Renewed by those, the overload budget never
 * ran out: in the overload harness with the JVM frozen for 20-40 ms every 100-400 ms (a host taking the machine), the
 * limit stayed at 6 for the 4 s after the overload in 2 of 3 runs, refusing 1-2% at 0.5 X (docs/reliability.md). The
 * window is 128 answers, not 32, because a freeze delays every request in flight and the burst behind it: over 32
 * answers the overload floor came back to stay in 3 of 11 runs, over 128 in 1 of 11, and there the server had truly
 * slowed (14 in flight at 0.5 X under the light-load floor, accepted p50 8.8 ms against 4.5 before).
 *
 * <p>{@code noLoadRtt} is the median RTT of the last {@value #SAMPLES} requests admitted with nothing else in
 * flight: those found a worker free, so their RTT is service time with no queue in it, whatever the load was before.
 * The minimum of all RTTs would not do: it keeps the fastest request ever (a prefill into an empty store) after the
 * storage has become slower; nor would a recent minimum of all RTTs: during an overload every request has queued, so
 * it rises and the floor would fall with it. During an overload no request is alone, and the last estimate stands.
 * The median rather than the mean, so that one request held up by a pause does not halve the floor.
 *
 * <p>The algorithm beneath learns from every sample as before and rules wherever it asks for more than the floor.
 */
final class LatencyBudgetFloor implements Limit {

    private final Limit algorithm;
    private final int workers;
    private final long lightBudgetNanos;
    private final long overloadBudgetNanos;
    private final long overloadHoldNanos;
    private final int minLimit;
    private final int maxLimit;
    private final List<Consumer<Integer>> listeners = new CopyOnWriteArrayList<>();
    static final int SAMPLES = 32;
    static final int ANSWERS = 128;
    private static final long RENEWAL_STEP_NANOS = 10_000_000;

    private final RecentRtts alone = new RecentRtts(SAMPLES);
    private long noLoadRtt;
    private final RecentRtts answered = new RecentRtts(ANSWERS);
    /** The refusal that last started or renewed the overload budget's hold. */
    private long lastRefusal;
    /** The overload budget is in force: set by a refusal, cleared once the hold has run out since the last one. */
    private boolean overloaded;
    private volatile int limit;

    /**
     * @param lightBudgetNanos    the budget until the first refusal and once none has been for the hold; 0 for none
     * @param overloadBudgetNanos the budget from a refusal on, for {@code overloadHoldNanos} after the last one
     */
    LatencyBudgetFloor(Limit algorithm, int workers, long lightBudgetNanos, long overloadBudgetNanos,
                       long overloadHoldNanos, int minLimit, int maxLimit) {
        this.algorithm = algorithm;
        this.workers = workers;
        this.lightBudgetNanos = lightBudgetNanos;
        this.overloadBudgetNanos = overloadBudgetNanos;
        this.overloadHoldNanos = overloadHoldNanos;
        this.minLimit = minLimit;
        this.maxLimit = maxLimit;
        this.limit = clamp(algorithm.getLimit());
        algorithm.notifyOnChange(learned -> update());
    }

    @Override
    public int getLimit() {
        return limit;
    }

    @Override
    public void notifyOnChange(Consumer<Integer> consumer) {
        listeners.add(consumer);
    }

    @Override
    public void onSample(long startTime, long rtt, int inflight, boolean didDrop) {
        if (inflight == 1 && rtt > 0) {
            recordAlone(rtt);
        }
        observe(startTime + rtt, rtt);
        algorithm.onSample(startTime, rtt, inflight, didDrop);
        update();
    }

    /**
     * A request was refused at {@code now} (the limiter's clock): the overload budget holds from here on, or, if it is
     * in force already, its hold is renewed while the admitted requests wait (the class comment). Returns true
     * instead when the overload budget was still in force only because nothing had been answered since its hold ran
     * out (a quiet spell after an overload): then the light-load budget is back, the limit may have risen, and the
     * caller should ask once more; a refusal then counts.
     */
    boolean refused(long now) {
        boolean holdRanOut;
        synchronized (this) {
            holdRanOut = overloaded && now - lastRefusal >= overloadHoldNanos;
            // The median is taken at most once per RENEWAL_STEP: an overload refuses thousands of times a second,
            // and a hold of a second needs no finer renewal.
            if (!overloaded || (!holdRanOut && now - lastRefusal >= RENEWAL_STEP_NANOS && waiting())) {
                lastRefusal = now;
            }
            overloaded = !holdRanOut;
        }
        update();
        return holdRanOut;
    }

    /** Whether the admitted requests are waiting as under an overload (the class comment says why this bound). */
    private boolean waiting() {
        return answered.isEmpty() || answered.median() >= noLoadRtt + (overloadBudgetNanos - noLoadRtt) / 2;
    }

    private synchronized void observe(long now, long rtt) {
        answered.add(rtt);
        if (overloaded && now - lastRefusal >= overloadHoldNanos) {
            overloaded = false;
        }
    }

    /** The floor now: 0 until a request has been measured alone. */
    synchronized int floor() {
        long budgetNanos = overloaded ? overloadBudgetNanos : lightBudgetNanos;
        if (noLoadRtt == 0 || budgetNanos == 0) {
            return 0;
        }
        // Rounded down: what the workers clear within the budget, not a request more.
        return (int) Math.min(Integer.MAX_VALUE, (long) workers * budgetNanos / noLoadRtt);
    }

    /** Whether the overload budget is in force (a refusal within the hold, as of the last sample or refusal). */
    synchronized boolean overloaded() {
        return overloaded;
    }

    /** The median RTT of the last requests admitted alone, nanoseconds; 0 before the first. */
    synchronized long noLoadRtt() {
        return noLoadRtt;
    }

    private synchronized void recordAlone(long rtt) {
        alone.add(rtt);
        noLoadRtt = alone.median();
    }

    // Listeners are told under the lock, in order, as the library's own limits do: SimpleLimiter adjusts its permits
    // by the difference from the last value it was told, so two moves must not reach it crossed.
    private synchronized void update() {
        int next = clamp(Math.max(floor(), algorithm.getLimit()));
        if (next != limit) {
            limit = next;
            for (Consumer<Integer> listener : listeners) {
                listener.accept(next);
            }
        }
    }

    private int clamp(int value) {
        return Math.max(minLimit, Math.min(maxLimit, value));
    }

    /** The last RTTs up to a capacity, for their median. Not thread-safe: the floor's lock guards it. */
    private static final class RecentRtts {
        private final long[] rtts;
        private int next;
        private int filled;

        RecentRtts(int capacity) {
            rtts = new long[capacity];
        }

        void add(long rtt) {
            rtts[next] = rtt;
            next = (next + 1) % rtts.length;
            filled = Math.min(rtts.length, filled + 1);
        }

        boolean isEmpty() {
            return filled == 0;
        }

        /** The median of what is held; 0 when empty. */
        long median() {
            if (filled == 0) {
                return 0;
            }
            long[] recent = Arrays.copyOf(rtts, filled);
            Arrays.sort(recent);
            return recent[recent.length / 2];
        }
    }
}
