package dev.larder.cli;

import dev.larder.server.threads.ThreadNice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The nice value of this JVM's JIT compiler threads ({@code --jit-nice}), set once the warm-up is done and before the
 * listeners open.
 *
 * <p>Why: a C2 compilation after the warm-up (an open-loop schedule's branch, a background thread's loop) runs at the
 * event loops' priority, so on a core they share it takes half of it for as long as it lasts: one of 0.2 s of CPU
 * left a loop at 44k GET/s half a core for 0.4 s, and that second's p99 was 55 ms (docs/performance.md,
 * "Session 93"). At nice 10 it gets about a tenth of the core while a loop is busy and all of it while the loop
 * sleeps. Not 19: at 19 the compilations that finish during the warm-up and the closed-loop runs got almost nothing
 * there and were deferred into the phases, five times the compiler CPU inside them ("Session 37").
 *
 * <p>Threads the JVM adds later inherit the value: HotSpot starts a new compiler thread from a compiler thread, and a
 * Linux thread starts at its creator's nice.
 *
 * <p>A compiler thread already above the value (a server started under {@code nice -n 15}) keeps its own, as
 * {@code ThreadSlice} does for the loops ({@link ThreadNice#atLeast}): lowering it would put the compilers above the
 * loops.
 */
final class JitCompilerNice {

    /** HotSpot's compiler threads ("C1 CompilerThread0"), as {@code /proc} shows them: 15 characters at most. */
    private static final List<String> NAMES = List.of("C1 CompilerThre", "C2 CompilerThre");

    private JitCompilerNice() {
    }

    /**
     * Sets {@code nice} (1-{@value ThreadNice#MAX}) on every JIT compiler thread of this process, found in
     * {@code tasks} ({@code /proc/self/task}), that runs below it; the nice value each compiler thread runs at now
     * ({@code nice}, or its own where that was higher). {@code nice} 0 leaves them as they are.
     *
     * @throws IOException       when {@code tasks} cannot be read (not Linux)
     * @throws RuntimeException  when the kernel refuses ({@code setpriority(2)} on a thread id)
     */
    static List<Integer> apply(int nice, Path tasks) throws IOException {
        if (nice < 0 || nice > ThreadNice.MAX) {
            throw new IllegalArgumentException("nice: " + nice + " (expected: 0-" + ThreadNice.MAX + ")");
        }
        List<Integer> now = new ArrayList<>();
        if (nice == 0) {
            return now;
        }
        for (int tid : compilerThreads(tasks)) {
            now.add(ThreadNice.atLeast(tid, nice));
        }
        return now;
    }

    /** The ids of the compiler threads listed in {@code tasks}. */
    static List<Integer> compilerThreads(Path tasks) throws IOException {
        List<Integer> found = new ArrayList<>();
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                String name;
                try {
                    name = Files.readString(thread.resolve("comm")).strip();
                } catch (IOException e) {
                    // The thread ended since the listing.
                    continue;
                }
                if (NAMES.stream().anyMatch(name::startsWith)) {
                    found.add(Integer.parseInt(thread.getFileName().toString()));
                }
            }
        }
        return found;
    }
}
