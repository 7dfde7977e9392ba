package dev.larder.server.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.LimitAlgorithm;
import com.netflix.concurrency.limits.Limiter;
import java.lang.reflect.Proxy;
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
        AdaptiveLimiter limiter = new AdaptiveLimiter(LimitAlgorithm.AIMD, 3, 1, 16,
                new RateLimitedLog(capturing(), 1_000_000_000L));
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
        AdaptiveLimiter limiter = new AdaptiveLimiter(LimitAlgorithm.AIMD, 8, 1, 16,
                new RateLimitedLog(capturing(), 60_000_000_000L));
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
}
