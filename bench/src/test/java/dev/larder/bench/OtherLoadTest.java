package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OtherLoadTest {

    @Test
    void anotherProcessSpinningOnACoreIsCounted() throws Exception {
        OtherLoad start = OtherLoad.now();
        Process spinner = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
        try {
            Thread.sleep(1_500);
        } finally {
            spinner.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        double share = OtherLoad.now().othersShareSince(start);
        // The machine's cores, not this JVM's share of them (taskset, a container's quota).
        long cores = Files.readAllLines(Path.of("/proc/stat")).stream().filter(l -> l.matches("cpu\\d+ .*")).count();
        // One core of the machine's, less the spinner's start-up and what the host stole.
        assertTrue(share > 0.5 / cores, "other processes' share " + share + " with one spinning, of " + cores);
    }
}
