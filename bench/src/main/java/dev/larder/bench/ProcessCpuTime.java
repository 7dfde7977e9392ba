package dev.larder.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How much CPU a set of processes used while a window ran, in cores (1.0: one core busy all the time). Mostly the
 * server under test's: the CPU time of the processes listening on its port ({@link ListeningProcesses}: Larder's
 * JVM, or nginx's master and workers), read from {@code /proc/<pid>/stat} every {@value #PERIOD_MILLIS} ms on a
 * thread of its own. Divided by the answers of the window it is the CPU a request cost, which at a fixed rate is
 * what decides how much of the core is left for bursts of background work: on one core a GET at 40k/s cost about
 * twice what it costs at saturation (docs/performance.md, "Session 23"), so a phase at 75% of a closed-loop capacity
 * can need the whole core. Reading small files per process and per thread costs the server no CPU of its own (the
 * generator reads them; an admin-endpoint scrape cost a Larder 4-5 ms, filtered to one series or not).
 *
 * <p>A window's figure comes from the first reading inside it to the last one inside it, so neither neighbour's load
 * leaks in (at most two periods of a window go unmeasured); a window shorter than two readings has none. The
 * processes are the ones listening when the run starts: once one of them exits (or its pid is reused: the start time
 * is checked) there are no more readings. For a server on another machine, or one whose processes cannot be read,
 * nothing is sampled and every figure is unknown.
 *
 * <p>Each reading also sums the threads that run at a lower priority than their process ({@code nice} above the
 * process's, from {@code /proc/<pid>/task/<tid>/stat}): Larder's flushes, compactions and table warmer at nice 19.
 * They take whatever the request path leaves, so a server whose background fills the core is not a server whose
 * loop does; session 44 read Larder 96.5-99.9% busy at every PUT rate it tried for that reason.
 */
final class ProcessCpuTime implements AutoCloseable {

    static final long PERIOD_MILLIS = 200;
    /** USER_HZ, the unit of the CPU times in {@code /proc/<pid>/stat}: 100 on every Linux ABI. */
    static final long TICKS_PER_SECOND = 100;

    /** Clock ticks ({@code /proc}'s unit for CPU time) in nanoseconds. */
    static double ticksToNanos(long ticks) {
        return ticks * (1e9 / TICKS_PER_SECOND);
    }

    /**
     * One reading: when ({@link System#nanoTime}), the processes' CPU time in ns since they started, and how much of it
     * their lower-priority threads have used since the first reading ({@link LowerPriorityThreads}; NaN unknown).
     */
    record Sample(long nanos, double cpuNanos, double backgroundCpuNanos, Map<String, Double> backgroundByThread) {

        Sample {
            backgroundByThread = Map.copyOf(backgroundByThread);
        }

        Sample(long nanos, double cpuNanos, double backgroundCpuNanos) {
            this(nanos, cpuNanos, backgroundCpuNanos, Map.of());
        }
    }

    /**
     * What one reading of the processes gives: all their CPU time, their lower-priority threads' (NaN unknown), and
     * the latter by thread name (ns since the first reading; empty when unknown).
     */
    record Reading(double cpuNanos, double backgroundCpuNanos, Map<String, Double> backgroundByThread) {

        Reading {
            backgroundByThread = Map.copyOf(backgroundByThread);
        }

        Reading(double cpuNanos, double backgroundCpuNanos) {
            this(cpuNanos, backgroundCpuNanos, Map.of());
        }
    }

    private final PeriodicSampler<Sample> sampler;
    private final int allowedCpus;

    private ProcessCpuTime(PeriodicSampler<Sample> sampler, int allowedCpus) {
        this.sampler = sampler;
        this.allowedCpus = allowedCpus;
    }

    /**
     * Samples the server's processes ({@link ListeningProcesses#serving}: those that serve the target on this
     * machine); nothing when there are none.
     */
    static ProcessCpuTime start(List<Long> serverPids, BitSet serverCpus) {
        return of(serverPids, serverCpus.cardinality(), true);
    }

    /**
     * The same readings of this JVM, the load generator itself (every thread: its event loops, JIT, collector), on the
     * CPUs it may run on: at a fixed rate a request costs the generator more than at saturation too, as it costs a
     * server, so a generator pinned to one core can be what is full (docs/performance.md, "Session 43"). Its threads
     * are not read one by one (it has no lower-priority ones, and the reads would be its own CPU).
     */
    static ProcessCpuTime ofThisProcess() {
        return of(List.of(ProcessHandle.current().pid()), Runtime.getRuntime().availableProcessors(), false);
    }

    /**
     * Samples the summed CPU time of {@code pids} (as they are now: a pid reused later is not followed), and of their
     * lower-priority threads when {@code byThread}.
     */
    private static ProcessCpuTime of(List<Long> pids, int allowedCpus, boolean byThread) {
        Path proc = Path.of("/proc");
        Map<Long, String> startTimes = new HashMap<>();
        Map<Long, LowerPriorityThreads> background = byThread ? new HashMap<>() : null;
        for (long pid : pids) {
            ProcStat.read(proc.resolve(pid + "/stat")).ifPresent(s -> startTimes.put(pid, s.startTime()));
            if (byThread) {
                background.put(pid, new LowerPriorityThreads(proc.resolve(pid + "/task")));
            }
        }
        return start(() -> read(proc, startTimes, background), allowedCpus);
    }

    /**
     * The summed CPU time of the processes ({@code pid -> start time}) and, when {@code background} is given (one per
     * process), what their threads at a lower priority than their process have used (else NaN); empty when there are
     * none or one of them is gone (exited, or its pid now names a process that started at another time).
     */
    static Optional<Reading> read(Path proc, Map<Long, String> startTimes,
                                  Map<Long, LowerPriorityThreads> background) {
        if (startTimes.isEmpty()) {
            return Optional.empty();
        }
        long ticks = 0;
        long backgroundTicks = 0;
        Map<String, Double> byThreadNanos = new HashMap<>();
        for (Map.Entry<Long, String> p : startTimes.entrySet()) {
            Optional<ProcStat> stat = ProcStat.read(proc.resolve(p.getKey() + "/stat"));
            if (stat.isEmpty() || !stat.get().startTime().equals(p.getValue())) {
                return Optional.empty();
            }
            ticks += stat.get().cpuTicks();
            if (background != null) {
                LowerPriorityThreads threads = background.get(p.getKey());
                backgroundTicks += threads.ticks(stat.get().nice());
                threads.ticksByName().forEach((name, t) -> byThreadNanos.merge(name, ticksToNanos(t), Double::sum));
            }
        }
        return Optional.of(new Reading(ticksToNanos(ticks),
                background != null ? ticksToNanos(backgroundTicks) : Double.NaN, byThreadNanos));
    }

    /**
     * What this needs of a {@code stat} file of a process or a thread: its name (the command, a thread's name cut to
     * 15 characters by the kernel), user plus system time (ticks), the nice value and the start time.
     */
    record ProcStat(String name, long cpuTicks, int nice, String startTime) {

        static Optional<ProcStat> read(Path stat) {
            try {
                return parse(Files.readString(stat));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }

        /**
         * Fields 14 (utime), 15 (stime), 19 (nice) and 22 (starttime), counted after the command name's closing
         * paren.
         */
        static Optional<ProcStat> parse(String stat) {
            int open = stat.indexOf('(');
            int paren = stat.lastIndexOf(')');
            if (open < 0 || paren < open) {
                return Optional.empty();
            }
            String[] f = stat.substring(paren + 1).trim().split("\\s+");
            // f[0] is field 3 (state): field n is f[n - 3].
            if (f.length < 20) {
                return Optional.empty();
            }
            long cpuTicks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return Optional.of(new ProcStat(stat.substring(open + 1, paren), cpuTicks, Integer.parseInt(f[16]), f[19]));
        }
    }

    /**
     * Samples {@code readings} (the server's CPU time in ns, empty when unknown) of a server that may run on
     * {@code allowedCpus} CPUs (0: unknown).
     */
    static ProcessCpuTime start(Supplier<Optional<Reading>> readings, int allowedCpus) {
        return new ProcessCpuTime(PeriodicSampler.start("bench-server-cpu", PERIOD_MILLIS, () -> {
            long now = System.nanoTime();
            Optional<Reading> r = readings.get();
            return r.map(reading -> new Sample(now, reading.cpuNanos(), reading.backgroundCpuNanos(),
                    reading.backgroundByThread())).orElse(null);
        }, List.of(ProcessCpuTime.class, LowerPriorityThreads.class)), allowedCpus);
    }

    /** How many CPUs the server may run on (its processes' affinity, {@code taskset}); 0 when unknown. */
    int allowedCpus() {
        return allowedCpus;
    }

    /** How many readings were taken so far. */
    int sampleCount() {
        return sampler.count();
    }

    /** The readings so far, to ask about many spans (a window's seconds) without copying them for each. */
    Readings readings() {
        return new Readings(sampler.readings());
    }

    /** Readings in time order, and the figures of the spans they cover. */
    record Readings(List<Sample> samples) {

        /**
         * The server's CPU in cores between {@code fromNanos} and {@code toNanos} ({@link System#nanoTime}): from the
         * first reading at or after the start to the last at or before the end; NaN when fewer than two readings
         * fall inside.
         */
        double cores(long fromNanos, long toNanos) {
            PeriodicSampler.Span<Sample> span = PeriodicSampler.within(samples, Sample::nanos, fromNanos, toNanos);
            return ProcessCpuTime.cores(span.first(), span.last());
        }

        /**
         * The part of {@link #cores(long, long)} that the server's lower-priority threads used (same readings); NaN
         * when unknown.
         */
        double backgroundCores(long fromNanos, long toNanos) {
            PeriodicSampler.Span<Sample> span = PeriodicSampler.within(samples, Sample::nanos, fromNanos, toNanos);
            return ProcessCpuTime.backgroundCores(span.first(), span.last());
        }

        /**
         * {@link #backgroundCores(long, long)} by thread name (RocksDB's {@code rocksdb:low} compactions and {@code
         * rocksdb:high} flushes, Larder's table warmer, ...), the busiest first; names that used nothing are left
         * out, and nothing is known (empty) when the span has fewer than two readings.
         */
        Map<String, Double> backgroundThreads(long fromNanos, long toNanos) {
            PeriodicSampler.Span<Sample> span = PeriodicSampler.within(samples, Sample::nanos, fromNanos, toNanos);
            return ProcessCpuTime.backgroundThreads(span.first(), span.last());
        }
    }

    static double cores(Sample first, Sample last) {
        if (first == null || last == null || last.nanos() <= first.nanos() || last.cpuNanos() < first.cpuNanos()) {
            return Double.NaN;
        }
        return (last.cpuNanos() - first.cpuNanos()) / (last.nanos() - first.nanos());
    }

    static double backgroundCores(Sample first, Sample last) {
        double all = cores(first, last);
        if (Double.isNaN(all) || !(last.backgroundCpuNanos() >= first.backgroundCpuNanos())) {
            return Double.NaN;
        }
        return Math.min(all, (last.backgroundCpuNanos() - first.backgroundCpuNanos()) / (last.nanos() - first.nanos()));
    }

    static Map<String, Double> backgroundThreads(Sample first, Sample last) {
        if (Double.isNaN(cores(first, last))) {
            return Map.of();
        }
        double spanNanos = last.nanos() - first.nanos();
        List<Map.Entry<String, Double>> used = new ArrayList<>();
        last.backgroundByThread().forEach((name, nanos) -> {
            double cores = (nanos - first.backgroundByThread().getOrDefault(name, 0.0)) / spanNanos;
            if (cores > 0) {
                used.add(Map.entry(name, cores));
            }
        });
        used.sort(Map.Entry.<String, Double>comparingByValue().reversed());
        Map<String, Double> out = new LinkedHashMap<>();
        used.forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /** Stops the sampler; once a window's end has passed, its figure no longer changes. */
    @Override
    public void close() {
        sampler.close();
    }
}
