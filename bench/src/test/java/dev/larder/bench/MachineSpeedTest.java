package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MachineSpeedTest {

    private static MachineSpeed speed(double before, double afterPhases, double afterNginx) {
        return new MachineSpeed(Duration.ofSeconds(5), before, afterPhases, afterNginx);
    }

    @Test
    void aSteadyMachineWarnsOfNothing() {
        assertEquals(List.of(), speed(90_000, 90_000, 90_000).warnings(0.75));
        assertEquals(List.of(), speed(90_000, 77_400, 88_000).warnings(0.75), "0.86x and 1.14x are within 15%");
    }

    @Test
    void aSlowerMachineAfterThePhasesSaysWhatLoadThePhasesRanAt() {
        MachineSpeed s = speed(100_000, 70_000, 72_000);
        List<Warning> w = s.warnings(0.75);
        assertEquals(1, w.size(), w.toString());
        assertEquals(Warning.Kind.MACHINE_SPEED_CHANGED, w.get(0).kind());
        // 75% of a capacity the machine now answers at 0.7x of is 107% of what it answers.
        assertTrue(w.get(0).message().contains("at 0.70x its speed before the capacity runs"), w.get(0).message());
        assertTrue(w.get(0).message().contains("at about 107% of what it could then answer, not 75%"),
                w.get(0).message());
        assertEquals(1, speed(100_000, 84_000, 84_000).warnings(0.75).size(), "0.84x is beyond 15%");
        assertEquals(1, speed(100_000, 120_000, 120_000).warnings(0.75).size(), "so is a faster one");
    }

    @Test
    void nginxsPhasesOnAnotherMachineSpeedAreWarnedOf() {
        List<Warning> w = speed(100_000, 100_000, 130_000).warnings(0.75);
        assertEquals(1, w.size(), w.toString());
        assertTrue(w.get(0).message().contains("at 1.30x after nginx's phases"), w.get(0).message());
        assertTrue(w.get(0).message().contains("measured on a faster machine"), w.get(0).message());
        assertTrue(speed(100_000, 100_000, 60_000).warnings(0.75).get(0).message().contains("a slower machine"));
    }

    @Test
    void itsLineGivesEachReadingAndTheRatios() {
        assertEquals("nginx closed-loop GET for 5s: 80000 req/s before the capacity runs, 60000 after the phases "
                + "(0.75x), 66000 after nginx's phases (1.10x of the one before)",
                speed(80_000, 60_000, 66_000).describe());
    }
}
