package dev.larder.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How often a connection's timeouts are checked; what the checks do is covered over real sockets (SlowClientTest). */
class ConnectionTimeoutsTest {

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void aQuarterOfTheShorterTimeoutBetweenTenMillisecondsAndOneSecond() {
        assertEquals(ms(1000), ConnectionTimeouts.checkPeriodNanos(ms(30_000), ms(120_000), 0), "the defaults");
        assertEquals(ms(250), ConnectionTimeouts.checkPeriodNanos(ms(30_000), ms(1000), 0), "idle is shorter");
        assertEquals(ms(250), ConnectionTimeouts.checkPeriodNanos(ms(1000), 0, 0), "idle off");
        assertEquals(ms(250), ConnectionTimeouts.checkPeriodNanos(0, ms(1000), 0), "read off");
        assertEquals(ms(10), ConnectionTimeouts.checkPeriodNanos(ms(20), ms(120_000), 0), "never below 10 ms");
    }

    @Test
    void aChosenPeriodWinsAndNoTimeoutMeansNoCheck() {
        assertEquals(ms(1), ConnectionTimeouts.checkPeriodNanos(ms(30_000), ms(120_000), ms(1)), "the JIT warm-up's");
        assertEquals(0, ConnectionTimeouts.checkPeriodNanos(0, 0, 0));
        assertEquals(0, ConnectionTimeouts.checkPeriodNanos(0, 0, ms(1)), "nothing to check, whatever the period");
    }
}
