package dev.larder.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The spinning loop's view of the store's background, on given times (no clock). */
class BackgroundCheckTest {

    @Test
    void asksAtTheFirstCallThenAtMostOncePerPeriod() {
        AtomicInteger asked = new AtomicInteger();
        AtomicBoolean busy = new AtomicBoolean(true);
        BackgroundCheck check = new BackgroundCheck(() -> {
            asked.incrementAndGet();
            return busy.get();
        });
        long t0 = -5_000_000L;
        assertTrue(check.busy(t0));
        busy.set(false);
        assertTrue(check.busy(t0 + BackgroundCheck.PERIOD_NANOS - 1), "the last answer, within its period");
        assertEquals(1, asked.get());
        assertFalse(check.busy(t0 + BackgroundCheck.PERIOD_NANOS), "asked again once the answer is a period old");
        assertEquals(2, asked.get());
        busy.set(true);
        assertFalse(check.busy(t0 + BackgroundCheck.PERIOD_NANOS + 1));
        assertTrue(check.busy(t0 + 2 * BackgroundCheck.PERIOD_NANOS));
        assertEquals(3, asked.get());
    }

    @Test
    void aQuestionThatFailsCountsAsAtWork() {
        BackgroundCheck check = new BackgroundCheck(() -> {
            throw new IllegalStateException("closed");
        });
        assertTrue(check.busy(0), "a failed question lets the loop sleep, never spin");
    }
}
