package dev.larder.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The CPU time one process's lower-priority threads (a nice value above the process's: Larder's flushes, compactions
 * and table warmer at nice 19) have used, summed reading after reading so that a thread's exit does not take its time
 * out of the sum: each reading adds what each such thread used since the one before (all of it for a thread not seen
 * before). A thread that exits between two readings loses only what it used after the first of them.
 *
 * <p>Not thread-safe: one instance per process, read by one sampler.
 */
final class LowerPriorityThreads {

    private final Path tasks;
    private Map<String, Long> lastTicks = new HashMap<>();
    /** Ticks counted so far by thread name (threads of one pool share theirs); their sum is {@link #ticks}'s. */
    private final Map<String, Long> totalByName = new HashMap<>();

    /** @param tasks the process's {@code /proc/<pid>/task} directory */
    LowerPriorityThreads(Path tasks) {
        this.tasks = tasks;
    }

    /**
     * Reads the process's threads now and returns the ticks its threads at a nice value above {@code processNice} have
     * used since the first reading began counting (the first reading counts their whole lives, a baseline).
     */
    long ticks(int processNice) {
        Map<String, Long> now = new HashMap<>();
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                Optional<ProcessCpuTime.ProcStat> stat = ProcessCpuTime.ProcStat.read(thread.resolve("stat"));
                if (stat.isEmpty() || stat.get().nice() <= processNice) {
                    // Gone meanwhile, or part of the request path.
                    continue;
                }
                // A tid reused by a new thread is told apart by its start time.
                String id = thread.getFileName() + "@" + stat.get().startTime();
                long ticks = stat.get().cpuTicks();
                Long before = lastTicks.get(id);
                totalByName.merge(stat.get().name(), before == null ? ticks : Math.max(0, ticks - before), Long::sum);
                now.put(id, ticks);
            }
        } catch (IOException | RuntimeException e) {
            // No listing this time (the process is exiting): the next reading adds what this one missed.
            return total();
        }
        lastTicks = now;
        return total();
    }

    private long total() {
        long sum = 0;
        for (long t : totalByName.values()) {
            sum += t;
        }
        return sum;
    }

    /** What {@link #ticks} has counted so far, by thread name (threads of one pool share theirs). */
    Map<String, Long> ticksByName() {
        return Map.copyOf(totalByName);
    }
}
