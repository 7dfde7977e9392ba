package dev.larder.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** How a spinning loop shares its windows with the store's background, on given times (no clock). */
class SpinShareTest {

    private static final long WINDOW = 200_000L;

    /** Asks once per window from {@code from}; returns the times it spun. */
    private static int spins(SpinShare share, long from, int windows) {
        int spun = 0;
        for (int i = 0; i < windows; i++) {
            if (share.spin(from + i * WINDOW, WINDOW)) {
                spun++;
            }
        }
        return spun;
    }

    @Test
    void whileTheBackgroundIsIdleEveryWindowIsSpun() {
        SpinShare share = new SpinShare(new BackgroundCheck(() -> false));
        assertEquals(1000, spins(share, 0, 1000));
    }

    @Test
    void whileTheBackgroundWorksItGetsItsShareOfTheWaitingTimeFromTheFirstWindowOn() {
        SpinShare share = new SpinShare(new BackgroundCheck(() -> true));
        StringBuilder first = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            first.append(share.spin(i * WINDOW, WINDOW) ? 'S' : 'z');
        }
        assertEquals("zSzSzS", first.toString(), "it sleeps first, then alternates");
        // Over a second, past the account's memory, the share holds.
        int spun = spins(share, 6 * WINDOW, 5000);
        assertEquals((1 - SpinShare.BACKGROUND_SHARE) * 5000, spun, 2);
    }

    @Test
    void windowsOfOtherLengthsAreSharedByTimeNotByCount() {
        SpinShare share = new SpinShare(new BackgroundCheck(() -> true));
        long slept = 0;
        long spun = 0;
        long now = 0;
        for (int i = 0; i < 3000; i++) {
            long wait = i % 3 == 0 ? 3 * WINDOW : WINDOW / 2;
            if (share.spin(now, wait)) {
                spun += wait;
            } else {
                slept += wait;
            }
            now += wait;
        }
        double sleptShare = (double) slept / (slept + spun);
        assertTrue(Math.abs(sleptShare - SpinShare.BACKGROUND_SHARE) < 0.1, "slept " + sleptShare);
    }

    @Test
    void whenTheBackgroundStopsTheLoopSpinsAgainAndItsAccountStartsAfresh() {
        AtomicBoolean busy = new AtomicBoolean(true);
        SpinShare share = new SpinShare(new BackgroundCheck(busy::get));
        long now = 0;
        spins(share, now, 101);
        now += 101 * WINDOW;
        busy.set(false);
        // The last answer holds for a check's period; the first window after it is spun.
        long next = now + BackgroundCheck.PERIOD_NANOS;
        assertTrue(share.spin(next, WINDOW));
        assertEquals(100, spins(share, next + WINDOW, 100));
        busy.set(true);
        long later = next + BackgroundCheck.PERIOD_NANOS + 101 * WINDOW;
        assertFalse(share.spin(later, WINDOW), "a fresh account: the background's window first");
    }
}
