package dev.larder.bench;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * How much CPU the server under test used while a window ran, in cores (1.0: one core busy all the time): the CPU
 * time of the processes listening on its port ({@link ListeningProcesses}: Larder's JVM, or nginx's master and
 * workers), read every {@value #PERIOD_MILLIS} ms on a thread of its own. Divided by the answers of the window it is
 * the CPU a request cost, which at a fixed rate is what decides how much of the core is left for bursts of background
 * work: on one core a GET at 40k/s cost about twice what it costs at saturation (docs/performance.md, "Session 23"),
 * so a phase at 75% of a closed-loop capacity can need the whole core. Read from {@code /proc} by this process, it
 * costs the server nothing (an admin-endpoint scrape cost a Larder 4-5 ms of CPU, filtered to one series or not).
 *
 * <p>A window's figure comes from the first reading inside it to the last one inside it, so neither neighbour's load
 * leaks in; a window shorter than two readings has none. For a server on another machine, or one whose processes
 * cannot be read, nothing is sampled and every figure is unknown.
 */
final class ServerCpuTime implements AutoCloseable {

    static final long PERIOD_MILLIS = 1000;

    /** One reading: when ({@link System#nanoTime}) and the processes' CPU time in ns since they started. */
    record Sample(long nanos, double cpuNanos) {
    }

    private final Supplier<OptionalDouble> cpuNanos;
    private final int allowedCpus;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread sampler;
    private volatile boolean stopped;

    private ServerCpuTime(Supplier<OptionalDouble> cpuNanos, int allowedCpus) {
        this.cpuNanos = cpuNanos;
        this.allowedCpus = allowedCpus;
        sampler = new Thread(this::sampleUntilClosed, "bench-server-cpu");
        sampler.setDaemon(true);
    }

    /** Samples the processes that serve {@code target} on this machine; nothing when there are none. */
    static ServerCpuTime start(URI target) {
        List<Long> pids = ListeningProcesses.serving(target);
        List<ProcessHandle> processes = pids.stream().map(ProcessHandle::of).flatMap(Optional::stream).toList();
        return start(() -> cpuNanos(processes), ListeningProcesses.allowedCpus(pids));
    }

    /** The summed CPU time of {@code processes}; empty when there are none or one of them can no longer say. */
    static OptionalDouble cpuNanos(List<ProcessHandle> processes) {
        if (processes.isEmpty()) {
            return OptionalDouble.empty();
        }
        double sum = 0;
        for (ProcessHandle p : processes) {
            Optional<Duration> cpu = p.info().totalCpuDuration();
            if (cpu.isEmpty()) {
                return OptionalDouble.empty();
            }
            sum += cpu.get().toNanos();
        }
        return OptionalDouble.of(sum);
    }

    /**
     * Samples {@code cpuNanos} (the server's CPU time in ns, empty when unknown) of a server that may run on
     * {@code allowedCpus} CPUs (0: unknown).
     */
    static ServerCpuTime start(Supplier<OptionalDouble> cpuNanos, int allowedCpus) {
        ServerCpuTime cpu = new ServerCpuTime(cpuNanos, allowedCpus);
        // A server whose CPU cannot be read now will not be readable in a second either: no thread for nothing.
        if (cpu.sample()) {
            cpu.sampler.start();
        } else {
            cpu.stopped = true;
        }
        return cpu;
    }

    private void sampleUntilClosed() {
        long next = System.nanoTime();
        while (!stopped) {
            next += TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (!stopped) {
                sample();
            }
        }
    }

    /** Takes one reading; {@code false} when there was none. */
    private boolean sample() {
        OptionalDouble cpu;
        try {
            cpu = cpuNanos.get();
        } catch (RuntimeException e) {
            return false;
        }
        long now = System.nanoTime();
        if (cpu.isEmpty()) {
            return false;
        }
        synchronized (samples) {
            samples.add(new Sample(now, cpu.getAsDouble()));
        }
        return true;
    }

    /** How many CPUs the server may run on (its processes' affinity, {@code taskset}); 0 when unknown. */
    int allowedCpus() {
        return allowedCpus;
    }

    /** How many readings were taken so far. */
    int sampleCount() {
        synchronized (samples) {
            return samples.size();
        }
    }

    /**
     * The server's CPU in cores between {@code fromNanos} and {@code toNanos} ({@link System#nanoTime}): from the
     * first reading at or after the start to the last at or before the end; NaN when fewer than two readings fall
     * inside.
     */
    double cores(long fromNanos, long toNanos) {
        Sample first = null;
        Sample last = null;
        synchronized (samples) {
            for (Sample s : samples) {
                if (s.nanos() < fromNanos || s.nanos() > toNanos) {
                    continue;
                }
                if (first == null) {
                    first = s;
                }
                last = s;
            }
        }
        return cores(first, last);
    }

    static double cores(Sample first, Sample last) {
        if (first == null || last == null || last.nanos() <= first.nanos() || last.cpuNanos() < first.cpuNanos()) {
            return Double.NaN;
        }
        return (last.cpuNanos() - first.cpuNanos()) / (last.nanos() - first.nanos());
    }

    /** Stops the sampler; once a window's end has passed, its figure no longer changes. */
    @Override
    public void close() {
        stopped = true;
        sampler.interrupt();
    }
}
