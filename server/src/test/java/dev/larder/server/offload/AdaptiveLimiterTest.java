package dev.larder.server.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.LimitAlgorithm;
import com.netflix.concurrency.limits.Limiter;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** The limiter on its own: permits up to the limit, and one log line (rate-limited) when the limit halves. */
class AdaptiveLimiterTest {

    private final List<String> lines = new ArrayList<>();

    /** A logger that keeps what is logged at INFO. */
    private Logger capturing() {
        return (Logger) Proxy.newProxyInstance(Logger.class.getClassLoader(), new Class<?>[] {Logger.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("info") && args != null && args.length == 1) {
                        lines.add((String) args[0]);
                    }
                    return method.getReturnType() == boolean.class ? false : null;
                });
    }

    @Test
    void permitsUpToTheLimitThenNone() {
        AdaptiveLimiter limiter = new AdaptiveLimiter(LimitAlgorithm.AIMD, 1, AdaptiveLimiter.FloorBudgets.NONE, 3, 1,
                16, new RateLimitedLog(capturing(), 1_000_000_000L), System::nanoTime);
        List<Limiter.Listener> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(limiter.tryAcquire());
        }
        assertNull(limiter.tryAcquire(), "over the limit");
        assertEquals(3, limiter.inFlight());
        held.get(0).onIgnore();
        assertEquals(2, limiter.inFlight());
        assertTrue(limiter.tryAcquire() != null, "a released permit can be taken again");
    }

    /**
     * AIMD multiplies the limit by 0.9 on each drop: 8, 7, 6, 5, 4, 3. The move to 3 is more than half from 8 and is
     * logged; the next, to 1, is more than half from 3 too, but comes within the second and is suppressed.
     */
    @Test
    void aMoveByMoreThanHalfIsLoggedOncePerInterval() {
        AdaptiveLimiter limiter = new AdaptiveLimiter(LimitAlgorithm.AIMD, 1, AdaptiveLimiter.FloorBudgets.NONE, 8, 1,
                16, new RateLimitedLog(capturing(), 60_000_000_000L), System::nanoTime);
        for (int i = 0; i < 4; i++) {
            limiter.tryAcquire().onDropped();
        }
        assertEquals(4, limiter.limit());
        assertEquals(List.of(), lines, "8 -> 4 is not more than half");
        limiter.tryAcquire().onDropped();
        assertEquals(3, limiter.limit());
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("adaptive limit (aimd) moved from 8 to 3 requests in flight"), lines.get(0));
        limiter.tryAcquire().onDropped();
        limiter.tryAcquire().onDropped();
        assertEquals(1, limiter.limit());
        assertEquals(1, lines.size(), "rate-limited: " + lines);
    }

    /** A clock the test moves by hand, so every RTT the limit learns from is exact. */
    private final long[] now = {0};

    private AdaptiveLimiter vegas(int workers, int initial, int max) {
        return new AdaptiveLimiter(LimitAlgorithm.VEGAS, workers, AdaptiveLimiter.FloorBudgets.DEFAULT, initial,
                workers, max, new RateLimitedLog(capturing(), 1_000_000_000L), () -> now[0]);
    }

    /** {@code count} requests one after another, each alone and taking {@code micros}. */
    private void alone(AdaptiveLimiter limiter, int count, long micros) {
        for (int i = 0; i < count; i++) {
            Limiter.Listener permit = limiter.tryAcquire();
            now[0] += micros * 1000;
            permit.onSuccess();
        }
    }

    /**
     * The CPU-bound case of docs/tuning.md: the whole RTT is 0.2 ms alone and 0.8 ms when eight arrive together
     * (on one core they share it), jitter, not a queue worth refusing for; at such a load most requests are alone. Vegas alone reads it as a queue of three quarters of its limit and goes
     * down to 8, which refused the next burst; with nothing refused yet the floor keeps what two workers clear in the
     * light-load budget of 20 ms (200), and a burst of 64 (one request per connection of the bench) is admitted whole.
     */
    @Test
    void jitterOnASubMillisecondRttDoesNotBringTheLimitBelowWhatTheWorkersClearInTheBudget() {
        AdaptiveLimiter limiter = vegas(2, 16, 256);
        alone(limiter, 40, 200);
        assertEquals(200, limiter.floor());
        for (int round = 0; round < 500; round++) {
            alone(limiter, 2, 200);
            List<Limiter.Listener> eight = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                eight.add(limiter.tryAcquire());
            }
            now[0] += 800_000;
            eight.forEach(Limiter.Listener::onSuccess);
        }
        assertEquals(200, limiter.limit());
        List<Limiter.Listener> burst = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            Limiter.Listener permit = limiter.tryAcquire();
            assertTrue(permit != null, "request " + i + " of the burst refused at limit " + limiter.limit());
            burst.add(permit);
        }
        now[0] += 1_000_000;
        burst.forEach(Limiter.Listener::onSuccess);
    }

    /**
     * A sustained overload of two workers whose every request takes 2 ms: requests arrive faster than they leave, so
     * whatever the limit admits waits behind all the others. From the first refusal on, the limit stays at what the
     * workers clear in the overload budget of 9 ms (9) for the whole overload. With Vegas's probe it climbed instead:
     * each probe took a queued RTT for the no-load one, saw no queue, and raised the limit by up to 6 a sample (to 25
     * in the overload harness, p99 25 ms). A second after the overload, a burst of 10 at once (what 50% load brings
     * now and then) is admitted: the limit Vegas learned under the overload, 5 to 8, refused it (1 of 4,574 at 0.5 X
     * in the harness), and so would the overload floor; the light-load one (20) is back.
     */
    @Test
    void aSustainedOverloadHoldsTheLimitAtTheFloorAndABurstAfterItIsAdmitted() {
        AdaptiveLimiter limiter = vegas(2, 16, 256);
        alone(limiter, 40, 2_000);
        assertEquals(20, limiter.floor(), "nothing refused yet: the light-load budget");
        ArrayDeque<Limiter.Listener> admitted = new ArrayDeque<>();
        int refusals = 0;
        int highest = 0;
        for (int tick = 0; tick < 20_000; tick++) {
            refusals += tick(limiter, admitted, Integer.MAX_VALUE);
            if (tick >= 1_000) {
                highest = Math.max(highest, limiter.limit());
            }
        }
        assertEquals(9, highest, "the highest limit after the first 2 s of overload");
        assertTrue(refusals > 0);
        assertTrue(limiter.overloaded());
        while (!admitted.isEmpty()) {
            now[0] += 1_000_000;
            admitted.poll().onSuccess();
        }
        // Nothing is answered in the quiet second that follows, so nothing moves the floor until the burst's refusal.
        now[0] += AdaptiveLimiter.OVERLOAD_HOLD.toNanos();
        List<Limiter.Listener> burst = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Limiter.Listener permit = limiter.tryAcquire();
            assertTrue(permit != null, "request " + i + " of the burst refused at limit " + limiter.limit());
            burst.add(permit);
        }
    }

    /**
     * After an overload, half the load (one 2 ms request per 2 ms, two workers) with a burst of 12 every 100 ms. The
     * overload floor (9) refuses part of each burst while its hold lasts; those refusals must not renew it, since the
     * admitted requests hardly wait (the median RTT is the no-load 2 ms, against about 9 under the overload).
     * Renewed by them it never ran out, and the bursts went on being refused (the harness's 0.5 X after an overload).
     * Here the light-load budget is back a second after the overload's last refusal, and the later bursts are
     * admitted.
     */
    @Test
    void burstsAtHalfLoadAfterAnOverloadDoNotHoldTheOverloadBudget() {
        AdaptiveLimiter limiter = vegas(2, 16, 256);
        alone(limiter, 40, 2_000);
        ArrayDeque<Limiter.Listener> admitted = new ArrayDeque<>();
        // Two seconds at far more than the workers clear.
        for (int tick = 0; tick < 1_000; tick++) {
            tick(limiter, admitted, Integer.MAX_VALUE);
        }
        assertTrue(limiter.overloaded());
        assertEquals(9, limiter.floor());
        int refusedEarly = 0;
        int refusedLate = 0;
        for (int tick = 1; tick <= 1_000; tick++) {
            int refused = tick(limiter, admitted, tick % 50 == 0 ? 12 : 1);
            if (tick <= 250) {
                refusedEarly += refused;
            } else if (tick > 600) {
                refusedLate += refused;
            }
        }
        assertTrue(refusedEarly > 0, "the overload floor refused nothing in the first half second: the bursts are too"
                + " small to show anything");
        assertFalse(limiter.overloaded(), "2 s after the overload");
        assertEquals(20, limiter.floor());
        assertEquals(0, refusedLate, "bursts refused from 1.2 s after the overload on");
    }

    /**
     * One 2 ms tick of two workers that each finish the oldest request they hold, then {@code arrivals} requests
     * ({@code Integer.MAX_VALUE}: as many as are admitted, then one refused); returns how many were refused.
     */
    private int tick(AdaptiveLimiter limiter, ArrayDeque<Limiter.Listener> admitted, int arrivals) {
        for (int w = 0; w < 2 && !admitted.isEmpty(); w++) {
            admitted.poll().onSuccess();
        }
        int refused = 0;
        for (int i = 0; i < arrivals; i++) {
            Limiter.Listener permit = limiter.tryAcquire();
            if (permit == null) {
                refused++;
                if (arrivals == Integer.MAX_VALUE) {
                    break;
                }
            } else {
                admitted.add(permit);
            }
        }
        now[0] += 2_000_000;
        return refused;
    }

    /**
     * The floor follows the median no-load RTT of the last 32 requests served alone, so a store that was fast when it
     * was empty (0.1 ms, the harness's prefill) and is slower now (2 ms) does not keep the floor of the empty store,
     * while one request held up by a pause (50 ms) does not move it.
     */
    @Test
    void theFloorFollowsTheRecentNoLoadRtt() {
        AdaptiveLimiter limiter = vegas(2, 16, 1000);
        assertEquals(0, limiter.floor(), "nothing measured yet");
        alone(limiter, 40, 100);
        assertEquals(400, limiter.floor());
        alone(limiter, 17, 2_000);
        assertEquals(20, limiter.floor());
        alone(limiter, 1, 50_000);
        assertEquals(20, limiter.floor());
    }

    /**
     * The floor's budget follows the refusals: the light-load one (20 ms: 20 requests of 2 ms for two workers) until
     * the first refusal, the overload one (9 ms: 9) from it on, and the light-load one again once a second has
     * passed without a refusal; answers within that second do not bring it back.
     */
    @Test
    void theFloorTightensFromARefusalOnAndLoosensASecondAfterTheLast() {
        AdaptiveLimiter limiter = vegas(2, 16, 256);
        alone(limiter, 40, 2_000);
        assertEquals(20, limiter.limit());
        List<Limiter.Listener> held = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            held.add(limiter.tryAcquire());
        }
        assertNull(limiter.tryAcquire(), "the 21st");
        assertTrue(limiter.overloaded());
        assertEquals(9, limiter.floor());
        now[0] += 2_000_000;
        held.forEach(Limiter.Listener::onSuccess);
        alone(limiter, 100, 2_000);
        assertTrue(limiter.overloaded(), "0.2 s after the refusal");
        assertEquals(9, limiter.floor());
        alone(limiter, 400, 2_000);
        assertFalse(limiter.overloaded(), "1 s after the refusal");
        assertEquals(20, limiter.floor());
        assertTrue(limiter.limit() >= 20, "limit " + limiter.limit());
    }
}
