package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which threads {@code --jit-nice} touches, read from a task directory laid out as {@code /proc/self/task} is. */
class JitCompilerNiceTest {

    @TempDir
    Path tasks;

    private void thread(int tid, String comm) throws IOException {
        Path dir = Files.createDirectories(tasks.resolve(Integer.toString(tid)));
        Files.writeString(dir.resolve("comm"), comm + "\n");
    }

    @Test
    void onlyTheCompilerThreadsAreFound() throws IOException {
        thread(101, "java");
        thread(102, "C2 CompilerThre");
        thread(103, "C1 CompilerThre");
        thread(104, "larder-io-1-1");
        thread(105, "VM Thread");
        thread(106, "C2 CompilerThre");
        // A thread that ended between the listing and the read of its name.
        Files.createDirectories(tasks.resolve("107"));

        List<Integer> found = JitCompilerNice.compilerThreads(tasks);

        assertEquals(List.of(102, 103, 106), found.stream().sorted().toList());
    }

    @Test
    void zeroLeavesThemAloneAndValuesOutsideNiceAreRefused() throws IOException {
        thread(102, "C2 CompilerThre");
        assertTrue(JitCompilerNice.apply(0, tasks).isEmpty());
        assertThrows(IllegalArgumentException.class, () -> JitCompilerNice.apply(20, tasks));
        assertThrows(IllegalArgumentException.class, () -> JitCompilerNice.apply(-1, tasks));
    }
}
