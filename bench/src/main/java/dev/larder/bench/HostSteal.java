package dev.larder.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How much of this machine's CPU time its host took while a window ran: the {@code steal} column of
 * {@code /proc/stat}, sampled every {@value #PERIOD_MILLIS} ms on a thread of its own. On a shared virtual machine
 * the host can take a large share for minutes (session 27 saw 13% of both cores in one window and under 1% ten minutes
 * later), and then a server and its generator run on less than the machine they seem to have: such a run is slower and
 * its tail longer than the same build's on a quiet host. Where {@code /proc/stat} cannot be read (not Linux, a
 * sandbox) nothing is sampled and every share is unknown.
 */
final class HostSteal implements AutoCloseable {

    static final long PERIOD_MILLIS = 200;

    /** One reading: when, and the machine's steal and total ticks since boot. */
    record Sample(long nanos, long steal, long total) {
    }

    private final PeriodicSampler<Sample> sampler;
    private boolean closed;

    private HostSteal(PeriodicSampler<Sample> sampler) {
        this.sampler = sampler;
    }

    /** Starts sampling {@code /proc/stat}. */
    static HostSteal start() {
        return start(Path.of("/proc/stat"));
    }

    static HostSteal start(Path stat) {
        return new HostSteal(PeriodicSampler.start("bench-host-steal", PERIOD_MILLIS, () -> read(stat),
                List.of(HostSteal.class)));
    }

    /** One reading of {@code stat}; {@code null} when there is nothing to read. */
    private static Sample read(Path stat) {
        try {
            return parse(System.nanoTime(), Files.readString(stat));
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
     * first eight (guest time is already counted in user and nice); {@code null} when there is no such line.
     */
    static Sample parse(long nanos, String procStat) {
        for (String line : procStat.split("\n")) {
            if (!line.startsWith("cpu ")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            if (f.length < 9) {
                return null;
            }
            long total = 0;
            for (int i = 1; i <= 8; i++) {
                total += Long.parseLong(f[i]);
            }
            return new Sample(nanos, Long.parseLong(f[8]), total);
        }
        return null;
    }

    /**
     * The share (0-1) of the machine's CPU time the host took between {@code fromNanos} and {@code toNanos}
     * ({@link System#nanoTime}), from the last sample at or before the start to the first at or after the end; NaN
     * when the samples do not cover the span (nothing could be read, or the span is still running).
     */
    double share(long fromNanos, long toNanos) {
        Sample first = null;
        Sample last = null;
        for (Sample s : sampler.readings()) {
            if (s.nanos() <= fromNanos) {
                first = s;
            }
            if (s.nanos() >= toNanos && last == null) {
                last = s;
            }
        }
        return share(first, last);
    }

    static double share(Sample first, Sample last) {
        if (first == null || last == null || last.total() <= first.total()) {
            return Double.NaN;
        }
        return (double) (last.steal() - first.steal()) / (last.total() - first.total());
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
