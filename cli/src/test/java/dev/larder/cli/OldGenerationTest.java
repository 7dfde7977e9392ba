package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The server's heap flags keep the serial collector (what a server pinned to one core gets) from following a young
 * collection with a full one: a JVM that promotes 20 MiB over several young collections, as a serving JVM does over
 * minutes, runs a full collection with the JVM's default old generation (6 MiB beside a 1 GiB young one) and none
 * with {@link ServerJvm#HEAP_FLAGS}. The first half shows the second half can fail on this JVM.
 */
class OldGenerationTest {

    @Test
    void withTheServersHeapFlagsPromotionDoesNotCauseAFullCollection() throws Exception {
        List<String> withoutOldSize = ServerJvm.HEAP_FLAGS.stream().filter(f -> !f.startsWith("-XX:OldSize")).toList();
        assertEquals(ServerJvm.HEAP_FLAGS.size() - 1, withoutOldSize.size(), "the flags set the old generation");

        // The JVM's own old generation is small wherever its default initial heap (a 64th of the memory) is under the
        // young generation's 1 GiB: 6 MiB on a 23 GiB machine. -Xms1g keeps it at the minimum on larger machines too.
        List<String> smallInitialHeap = new ArrayList<>(withoutOldSize);
        smallInitialHeap.add("-Xms1g");
        GcLog defaultOld = runPromoter(smallInitialHeap);
        assertTrue(defaultOld.youngCollections() >= 6, defaultOld.text());
        assertTrue(defaultOld.fullCollections() >= 1, "the default old generation grows by full collections: "
                + defaultOld.text());

        GcLog serverFlags = runPromoter(ServerJvm.HEAP_FLAGS);
        assertTrue(serverFlags.youngCollections() >= 6, serverFlags.text());
        assertEquals(0, serverFlags.fullCollections(), serverFlags.text());
    }

    private static GcLog runPromoter(List<String> heapFlags) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(LarderProcess.javaBinary());
        // The maximum heap is fixed so the old generation's room does not depend on this machine's memory.
        command.addAll(List.of("-XX:+UseSerialGC", "-Xmx2g"));
        command.addAll(heapFlags);
        command.addAll(List.of("-Xlog:gc:stdout", "-cp", System.getProperty("java.class.path"),
                Promoter.class.getName()));
        // Its output goes to a file, so the wait below bounds the run (reading a pipe to its end would not).
        Path log = Files.createTempFile("old-generation", ".log");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            boolean finished = process.waitFor(120, TimeUnit.SECONDS);
            if (!finished) {
                process.destroyForcibly();
            }
            String out = Files.readString(log);
            assertTrue(finished, "promoter finished: " + out);
            assertEquals(0, process.exitValue(), out);
            return new GcLog(out);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private record GcLog(String text) {
        long youngCollections() {
            return text.lines().filter(l -> l.contains("Pause Young")).count();
        }

        long fullCollections() {
            return text.lines().filter(l -> l.contains("Pause Full")).count();
        }
    }

    /** Keeps 2.5 MiB alive per young collection and makes a young generation's worth of garbage between them. */
    public static final class Promoter {
        static volatile byte[] sink;

        public static void main(String[] args) {
            List<byte[]> kept = new ArrayList<>();
            for (int round = 0; round < 8; round++) {
                for (int i = 0; i < 40; i++) {
                    kept.add(new byte[64 * 1024]);
                }
                for (long made = 0; made < 1100L << 20; made += 16 * 1024) {
                    sink = new byte[16 * 1024];
                }
            }
            System.out.println("kept " + kept.size());
        }
    }
}
