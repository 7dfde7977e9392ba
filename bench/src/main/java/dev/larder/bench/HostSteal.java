package dev.larder.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * How much of this machine's CPU time its host took while a window ran: the {@code steal} column of
 * {@code /proc/stat}, sampled every {@value #PERIOD_MILLIS} ms on a thread of its own. On a shared virtual machine
 * the host can take a large share for minutes (session 27 saw 13% of both cores in one window and under 1% ten minutes
 * later), and then a server and its generator run on less than the machine they seem to have: such a run is slower and
 * its tail longer than the same build's on a quiet host. Where {@code /proc/stat} cannot be read (not Linux, a
 * sandbox) nothing is sampled and every share is unknown.
 *
 * <p>The same readings also give the share of the server's own CPUs that the host took, when the server is pinned
 * ({@code taskset}): on a two-core machine 5% of the machine can be 10% of the server's core, and that is what its
 * latency feels.
 */
final class HostSteal implements AutoCloseable {

    static final long PERIOD_MILLIS = 200;

    /**
     * One reading: when, the machine's steal, total and busy ticks since boot (busy: neither idle, iowait nor steal,
     * so what processes ran), and steal and total for the server's CPUs (-1 when they are unknown).
     */
    record Sample(long nanos, long steal, long total, long busy, long serverSteal, long serverTotal) {
    }

    private final PeriodicSampler<Sample> sampler;
    private boolean closed;

    private HostSteal(PeriodicSampler<Sample> sampler) {
        this.sampler = sampler;
    }

    /** Starts sampling {@code /proc/stat}, the server's CPUs among them ({@code serverCpus}; empty: unknown). */
    static HostSteal start(BitSet serverCpus) {
        return start(Path.of("/proc/stat"), serverCpus);
    }

    static HostSteal start(Path stat) {
        return start(stat, new BitSet());
    }

    static HostSteal start(Path stat, BitSet serverCpus) {
        BitSet cpus = (BitSet) serverCpus.clone();
        return new HostSteal(PeriodicSampler.start("bench-host-steal", PERIOD_MILLIS, () -> read(stat, cpus),
                List.of(HostSteal.class)));
    }

    /** One reading of {@code stat}; {@code null} when there is nothing to read. */
    private static Sample read(Path stat, BitSet serverCpus) {
        try {
            return parse(System.nanoTime(), Files.readString(stat), serverCpus);
        } catch (IOException e) {
            return null;
        }
    }

    /** How many readings were taken so far. */
    int sampleCount() {
        return sampler.count();
    }

    /**
     * The aggregate {@code cpu} line of a {@code /proc/stat} text: steal is its eighth value, the total the sum of the
     * first eight (guest time is already counted in user and nice), busy the total less idle (4th), iowait (5th) and
     * steal; {@code null} when there is no such line.
     */
    static Sample parse(long nanos, String procStat) {
        return parse(nanos, procStat, new BitSet());
    }

    /**
     * As {@link #parse(long, String)}, with the {@code cpuN} lines of {@code serverCpus} summed the same way (-1 when
     * the set is empty or one of them has no line).
     */
    static Sample parse(long nanos, String procStat, BitSet serverCpus) {
        CpuLine machine = null;
        long serverSteal = 0;
        long serverTotal = 0;
        int serverLines = 0;
        for (String line : procStat.split("\n")) {
            if (!line.startsWith("cpu")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            if (f.length < 9) {
                if (f[0].equals("cpu")) {
                    return null;
                }
                continue;
            }
            CpuLine cpu = CpuLine.of(f);
            if (f[0].equals("cpu")) {
                machine = cpu;
            } else if (serverCpus.get(Integer.parseInt(f[0].substring(3)))) {
                serverSteal += cpu.steal();
                serverTotal += cpu.total();
                serverLines++;
            }
        }
        if (machine == null) {
            return null;
        }
        boolean known = !serverCpus.isEmpty() && serverLines == serverCpus.cardinality();
        return new Sample(nanos, machine.steal(), machine.total(), machine.busy(), known ? serverSteal : -1,
                known ? serverTotal : -1);
    }

    /** One {@code cpu} or {@code cpuN} line's ticks since boot. */
    private record CpuLine(long steal, long total, long busy) {

        // Steal is the eighth value, the total the sum of the first eight; idle and iowait (4th, 5th) are not busy.
        static CpuLine of(String[] f) {
            long total = 0;
            for (int i = 1; i <= 8; i++) {
                total += Long.parseLong(f[i]);
            }
            long steal = Long.parseLong(f[8]);
            return new CpuLine(steal, total, total - Long.parseLong(f[4]) - Long.parseLong(f[5]) - steal);
        }
    }

    /** The readings so far, to ask about many spans (a window's seconds) without copying them for each. */
    Readings readings() {
        return new Readings(sampler.readings());
    }

    /** Readings in time order, and the shares of the spans they cover. */
    record Readings(List<Sample> samples) {

        /**
         * The share (0-1) of the machine's CPU time the host took between {@code fromNanos} and {@code toNanos}
         * ({@link System#nanoTime}), from the last sample at or before the start to the first at or after the end;
         * NaN when the samples do not cover the span (nothing could be read, or the span is still running).
         */
        double share(long fromNanos, long toNanos) {
            PeriodicSampler.Span<Sample> span = PeriodicSampler.around(samples, Sample::nanos, fromNanos, toNanos);
            return HostSteal.share(span.first(), span.last());
        }

        /** The same share of the server's CPUs' time; NaN also when they are unknown. */
        double serverCpusShare(long fromNanos, long toNanos) {
            PeriodicSampler.Span<Sample> span = PeriodicSampler.around(samples, Sample::nanos, fromNanos, toNanos);
            return HostSteal.serverCpusShare(span.first(), span.last());
        }
    }

    static double share(Sample first, Sample last) {
        if (first == null || last == null || last.total() <= first.total()) {
            return Double.NaN;
        }
        return (double) (last.steal() - first.steal()) / (last.total() - first.total());
    }

    static double serverCpusShare(Sample first, Sample last) {
        if (first == null || last == null || first.serverTotal() < 0 || last.serverTotal() <= first.serverTotal()) {
            return Double.NaN;
        }
        return (double) (last.serverSteal() - first.serverSteal()) / (last.serverTotal() - first.serverTotal());
    }

    /** Stops the sampler and takes one more reading, the end of the last window; once. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        sampler.close();
        sampler.read();
    }
}
