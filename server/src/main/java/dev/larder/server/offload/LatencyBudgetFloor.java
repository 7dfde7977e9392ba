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
    private final long budgetNanos;
    private final int minLimit;
    private final int maxLimit;
    private final List<Consumer<Integer>> listeners = new CopyOnWriteArrayList<>();
    static final int SAMPLES = 32;

    private final long[] alone = new long[SAMPLES];
    private int next;
    private int filled;
    private long noLoadRtt;
    private volatile int limit;

    LatencyBudgetFloor(Limit algorithm, int workers, long budgetNanos, int minLimit, int maxLimit) {
        this.algorithm = algorithm;
        this.workers = workers;
        this.budgetNanos = budgetNanos;
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
        algorithm.onSample(startTime, rtt, inflight, didDrop);
        update();
    }

    /** The floor now: 0 until a request has been measured alone. */
    synchronized int floor() {
        if (noLoadRtt == 0 || budgetNanos == 0) {
            return 0;
        }
        // Rounded down: what the workers clear within the budget, not a request more.
        return (int) Math.min(Integer.MAX_VALUE, (long) workers * budgetNanos / noLoadRtt);
    }

    /** The median RTT of the last requests admitted alone, nanoseconds; 0 before the first. */
    synchronized long noLoadRtt() {
        return noLoadRtt;
    }

    private synchronized void recordAlone(long rtt) {
        alone[next] = rtt;
        next = (next + 1) % SAMPLES;
        filled = Math.min(SAMPLES, filled + 1);
        long[] recent = Arrays.copyOf(alone, filled);
        Arrays.sort(recent);
        noLoadRtt = recent[recent.length / 2];
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
}
