package dev.larder.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The decision {@code --io-coalesce} makes before each blocking wait, on given times (no clock, no sleeping). */
class WakeupCoalescerTest {
    private static final long WINDOW = 200_000;
    private static final long HOLD = WakeupCoalescer.HOLD_WINDOWS * WINDOW;

    @Test
    void aStartingLoopBlocksAtOnceUntilTheHoldHasPassed() {
        WakeupCoalescer c = new WakeupCoalescer(WINDOW, 0);
        assertEquals(0, c.waitBeforeBlocking(HOLD - 1, Long.MAX_VALUE));
        assertEquals(WINDOW, c.waitBeforeBlocking(HOLD, Long.MAX_VALUE));
    }

    @Test
    void shortIterationsUnderModerateLoadWaitTheWindow() {
        WakeupCoalescer c = new WakeupCoalescer(WINDOW, 0);
        long now = HOLD;
        for (int i = 0; i < 100; i++) {
            assertEquals(WINDOW, c.waitBeforeBlocking(now, Long.MAX_VALUE));
            now += WINDOW;
            c.ran(now, now + WINDOW - 1);
            now += WINDOW - 1;
        }
    }

    @Test
    void aLongIterationLightOrHeavyLoadTurnsWaitingOffForTheHold() {
        WakeupCoalescer c = new WakeupCoalescer(WINDOW, 0);
        long start = 10 * HOLD;
        c.ran(start, start + WINDOW);
        long end = start + WINDOW;
        assertEquals(0, c.waitBeforeBlocking(end, Long.MAX_VALUE));
        assertEquals(0, c.waitBeforeBlocking(end + HOLD - 1, Long.MAX_VALUE));
        assertEquals(WINDOW, c.waitBeforeBlocking(end + HOLD, Long.MAX_VALUE));
    }

    @Test
    void theWaitEndsBeforeTheNextScheduledTask() {
        WakeupCoalescer c = new WakeupCoalescer(WINDOW, 0);
        assertEquals(50_000, c.waitBeforeBlocking(HOLD, 50_000));
        assertEquals(0, c.waitBeforeBlocking(HOLD, 0));
        assertEquals(0, c.waitBeforeBlocking(HOLD, -5), "an overdue task");
    }

    @Test
    void worksAcrossTheNanoTimeWrap() {
        long start = Long.MAX_VALUE - HOLD / 2;
        WakeupCoalescer c = new WakeupCoalescer(WINDOW, start);
        assertEquals(0, c.waitBeforeBlocking(start + HOLD - 1, Long.MAX_VALUE));
        assertEquals(WINDOW, c.waitBeforeBlocking(start + HOLD, Long.MAX_VALUE));
    }

    @Test
    void aWindowMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new WakeupCoalescer(0, 0));
    }
}
