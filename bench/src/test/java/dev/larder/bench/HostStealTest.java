package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the host's share of the CPU time from /proc/stat, and the share over a window. */
class HostStealTest {

    private static String stat(long user, long idle, long steal) {
        // guest and guest_nice (the last two) are already in user and nice: not part of the total.
        return "cpu  " + user + " 10 20 " + idle + " 5 0 3 " + steal + " 17 9\n"
                + "cpu0 1 2 3 4 5 6 7 8 0 0\nintr 12345\n";
    }

    @Test
    void stealIsTheEighthValueOfTheAggregateLineTheTotalTheFirstEightAndBusyTheRestLessIdle() {
        HostSteal.Sample s = HostSteal.parse(7, stat(100, 400, 62));
        assertEquals(7, s.nanos());
        assertEquals(62, s.steal());
        assertEquals(100 + 10 + 20 + 400 + 5 + 0 + 3 + 62, s.total());
        assertEquals(100 + 10 + 20 + 0 + 3, s.busy(), "user, nice, system, irq, softirq: not idle, iowait or steal");
        assertNull(HostSteal.parse(7, "intr 1\n"), "no aggregate line");
    }

    @Test
    void theServersCpusAreSummedFromTheirOwnLines() {
        String text = "cpu  300 0 0 900 0 0 0 60 0 0\n"
                + "cpu0 100 0 0 500 0 0 0 10 0 0\ncpu1 200 0 0 400 0 0 0 50 0 0\n";
        java.util.BitSet one = new java.util.BitSet();
        one.set(1);
        HostSteal.Sample a = HostSteal.parse(0, text, one);
        assertEquals(50, a.serverSteal());
        assertEquals(650, a.serverTotal());
        HostSteal.Sample b = HostSteal.parse(1, "cpu  330 0 0 960 0 0 0 110 0 0\n"
                + "cpu0 130 0 0 540 0 0 0 10 0 0\ncpu1 200 0 0 420 0 0 0 100 0 0\n", one);
        assertEquals(50.0 / 70, HostSteal.serverCpusShare(a, b), 1e-9, "core 1: 50 of its 70 ticks stolen");
        assertEquals(50.0 / 140, HostSteal.share(a, b), 1e-9, "the machine: 50 of 140");
        assertTrue(Double.isNaN(HostSteal.serverCpusShare(HostSteal.parse(0, text), HostSteal.parse(1, text))),
                "no server CPUs known: unknown");
        java.util.BitSet absent = new java.util.BitSet();
        absent.set(7);
        assertEquals(-1, HostSteal.parse(0, text, absent).serverTotal(), "a CPU without a line: unknown");
    }

    @Test
    void theShareIsTheStealTicksOverAllTicksBetweenTwoSamples() {
        HostSteal.Sample a = HostSteal.parse(0, stat(100, 400, 50));
        HostSteal.Sample b = HostSteal.parse(1, stat(160, 420, 70));
        assertEquals(20.0 / 100, HostSteal.share(a, b), 1e-9);
        assertTrue(Double.isNaN(HostSteal.share(a, null)), "a window still running has no share yet");
        assertTrue(Double.isNaN(HostSteal.share(b, a)), "no ticks passed");
    }

    @Test
    void aWindowIsMeasuredFromTheSampleBeforeItToTheSampleAfterIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("stat");
        Files.writeString(file, stat(100, 400, 50));
        HostSteal steal = HostSteal.start(file);
        long from = System.nanoTime();
        Thread.sleep(HostSteal.PERIOD_MILLIS * 3);
        assertTrue(steal.sampleCount() >= 2, "the sampler reads while the window runs: " + steal.sampleCount());
        Files.writeString(file, stat(130, 420, 100));
        long to = System.nanoTime();
        steal.close();
        assertEquals(50.0 / 100, steal.readings().share(from, to), 1e-9);
    }

    @Test
    void aSpanIsMeasuredFromTheReadingsOnOrJustOutsideItsBounds() {
        // Readings at 0, 1, ..., 9 s of 100 ticks each; the host takes 10 of them a second through 5 s, 50 after.
        long s = 1_000_000_000L;
        List<HostSteal.Sample> samples = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            long steal = i <= 5 ? 10L * i : 50 + 50L * (i - 5);
            samples.add(new HostSteal.Sample(i * s, steal, 100L * i, 50L * i, steal / 2, 50L * i));
        }
        HostSteal.Readings readings = new HostSteal.Readings(samples);
        assertEquals(0.10, readings.share(0, 5 * s), 1e-9, "readings on both bounds");
        assertEquals(0.50, readings.share(5 * s, 9 * s), 1e-9);
        assertEquals(0.30, readings.share(4 * s + 1, 5 * s + 1), 1e-9, "from 4 s to 6 s: the readings just outside");
        assertEquals(0.50, readings.serverCpusShare(6 * s, 8 * s), 1e-9);
        assertTrue(Double.isNaN(readings.share(-1, s)), "nothing read before the start");
        assertTrue(Double.isNaN(readings.share(8 * s, 9 * s + 1)), "nothing read after the end yet");
        assertTrue(Double.isNaN(new HostSteal.Readings(List.of()).share(0, s)));
    }

    @Test
    void nothingReadableGivesAnUnknownShare(@TempDir Path dir) {
        HostSteal steal = HostSteal.start(dir.resolve("absent"));
        long from = System.nanoTime();
        steal.close();
        assertTrue(Double.isNaN(steal.readings().share(from, System.nanoTime())));
        assertEquals(0, steal.sampleCount());
    }

    @Test
    void onLinuxTheRealFileGivesAShareBetweenZeroAndOne() throws Exception {
        // The parsing is covered above; only Linux has the file.
        assumeTrue(Files.isReadable(Path.of("/proc/stat")), "no /proc/stat here");
        java.util.BitSet cpu0 = new java.util.BitSet();
        cpu0.set(0);
        HostSteal steal = HostSteal.start(cpu0);
        long from = System.nanoTime();
        Thread.sleep(HostSteal.PERIOD_MILLIS * 3);
        long to = System.nanoTime();
        steal.close();
        double share = steal.readings().share(from, to);
        // Some sandboxes (gVisor) serve a /proc/stat whose counters never move: nothing to measure there.
        assumeFalse(Double.isNaN(share), "/proc/stat's counters did not move");
        assertTrue(share >= 0 && share <= 1, "share " + share);
        double cpu0Share = steal.readings().serverCpusShare(from, to);
        assertTrue(cpu0Share >= 0 && cpu0Share <= 1, "CPU 0's share " + cpu0Share);
    }
}
