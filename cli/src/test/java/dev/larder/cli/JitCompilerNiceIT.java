package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.threads.ThreadNice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --jit-nice} on a real server process: its compiler threads at that nice value, every other thread not. */
class JitCompilerNiceIT {

    @TempDir
    Path dir;

    /** Thread name to the highest nice value among the process's threads of that name, from /proc/PID/task. */
    private static Map<String, Integer> niceByName(long pid) throws IOException {
        Map<String, Integer> nice = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String name;
                try {
                    name = Files.readString(task.resolve("comm")).strip();
                } catch (IOException e) {
                    continue; // the thread ended since the listing
                }
                nice.merge(name, ThreadNice.of(Integer.parseInt(task.getFileName().toString())), Math::max);
            }
        }
        return nice;
    }

    @Test
    void theCompilerThreadsRunAtTheGivenNiceAndNothingElseDoes() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--jit-nice", "7")) {
            Map<String, Integer> nice = niceByName(larder.pid());
            assertEquals(7, nice.get("C2 CompilerThre"), nice.toString());
            assertEquals(7, nice.get("C1 CompilerThre"), nice.toString());
            assertTrue(larder.output().contains("jit-nice=7 ("), larder.output());
            assertFalse(larder.output().contains("kept their own"), larder.output());
            // The event loops, the main thread and the VM's own threads keep the server's priority.
            nice.entrySet().stream()
                    .filter(e -> e.getKey().startsWith("larder-io") || e.getKey().equals("java")
                            || e.getKey().equals("VM Thread"))
                    .forEach(e -> assertEquals(0, e.getValue(), e.getKey()));
            assertTrue(nice.keySet().stream().anyMatch(name -> name.startsWith("larder-io")), nice.toString());
        }
    }

    @Test
    void aServerStartedAtAHigherNiceKeepsItsOwnForTheCompilers() throws Exception {
        // Setting 7 there would raise the compilers' priority above the loops' (and without CAP_SYS_NICE be refused).
        List<String> command = List.of("nice", "-n", "12", LarderProcess.javaBinary(), "-Xmx256m", "-jar",
                LarderProcess.jar().toString(),
                "serve", "--port", "0", "--admin-port", "0", "--data-dir", dir.resolve("data").toString(),
                "--warmup-requests", Integer.toString(LarderProcess.SHORT_WARMUP_REQUESTS), "--jit-nice", "7");
        try (LarderProcess larder = LarderProcess.exec(command, Map.of())) {
            Map<String, Integer> nice = niceByName(larder.pid());
            assertEquals(12, nice.get("C2 CompilerThre"), nice.toString());
            assertEquals(12, nice.get("C1 CompilerThre"), nice.toString());
            assertTrue(larder.output().contains("jit-nice=7 ("), larder.output());
            assertTrue(larder.output().contains("kept their own higher nice 12)"), larder.output());
            assertFalse(larder.output().contains("refused"), larder.output());
        }
    }

    @Test
    void zeroLeavesTheCompilersAtTheServersPriority() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--jit-nice", "0")) {
            Map<String, Integer> nice = niceByName(larder.pid());
            assertEquals(0, nice.get("C2 CompilerThre"), nice.toString());
            assertTrue(larder.output().contains("jit-nice=0"), larder.output());
        }
    }
}
