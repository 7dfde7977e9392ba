package dev.larder.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.HdrHistogram.IntCountsHistogram;

/**
 * A measured window second by second (by arrival time of the answers, merged over the generator threads): what a
 * single p99 over the whole window hides, a stall of a few seconds or a slow start after a workload switch, shows
 * here. Latencies are corrected (from the due time), in microseconds. Each second also carries what the machine did
 * in it ({@link Machine}), so a bad second can be read as a full core, the server's background, or the host taking
 * the CPU, without a sampler run by hand beside the benchmark.
 *
 * @param thresholdMicros the bound {@link Second#overThreshold()} counts against (the SLO's latency bound)
 * @param seconds         the window's seconds in order; the last one may be partial
 */
public record Timeline(long thresholdMicros, List<Second> seconds) {

    /** How many worst seconds a text output lists (the tail's phase table, the sustainable search's trials). */
    static final int WORST_SECONDS = 3;

    /**
     * The host's share of the server's CPU time above which a second counts as stolen in the tail's phase table: the
     * same bound as a window's warning ({@link Honesty#STEAL_SHARE}). A phase at 75% of a closed-loop capacity keeps
     * the core 0.9-1.0 busy (a request costs 1.2-1.4x more at a fixed rate), so a few percent taken is enough to build
     * a queue; on the machine this was set on, 3 of 768 seconds within 10 ms read more than that, against 254 of 582
     * above it (docs/performance.md, "Session 64").
     */
    static final double STOLEN_SHARE = Honesty.STEAL_SHARE;

    /** No seconds (a run without a fixed window, such as the prefill). */
    public static final Timeline EMPTY = new Timeline(0, List.of());

    /**
     * One second of the window.
     *
     * @param completed     answers that arrived in it
     * @param overThreshold of those, answers with latency above the threshold
     * @param p50           median latency, µs (2 significant digits)
     * @param p99           99th percentile, µs (2 significant digits)
     * @param max           the highest latency, µs (exact)
     * @param machine       the server's CPU and the host's steal in this second
     */
    public record Second(long completed, long overThreshold, long p50, long p99, long max, Machine machine) {

        public Second {
            machine = machine == null ? Machine.UNKNOWN : machine;
        }

        /** A second whose machine figures are unknown. */
        public Second(long completed, long overThreshold, long p50, long p99, long max) {
            this(completed, overThreshold, p50, p99, max, Machine.UNKNOWN);
        }
    }

    /**
     * What the machine did in one second of a window, from the samplers a run keeps anyway ({@link ProcessCpuTime},
     * {@link HostSteal}); NaN where unknown (a server on another machine, no {@code /proc}).
     *
     * @param serverCores           the server's CPU, in cores (1.0: one core busy the whole second)
     * @param serverBackgroundCores the part of it its lower-priority threads used (Larder's flushes and compactions)
     * @param hostSteal             the share (0-1) of the machine's CPU time its host took
     * @param serverCpusSteal       the share (0-1) of the server's CPUs' time its host took (known when the server's
     *                              CPUs are: pinned with {@code taskset}, or on every CPU)
     * @param backgroundThreads     {@code serverBackgroundCores} by thread name, the busiest first (empty unknown):
     *                              which background work a bad second had beside it, a compaction or a flush
     */
    public record Machine(double serverCores, double serverBackgroundCores, double hostSteal,
                          double serverCpusSteal, Map<String, Double> backgroundThreads) {

        public Machine {
            backgroundThreads = Collections.unmodifiableMap(new LinkedHashMap<>(backgroundThreads));
        }

        public Machine(double serverCores, double serverBackgroundCores, double hostSteal, double serverCpusSteal) {
            this(serverCores, serverBackgroundCores, hostSteal, serverCpusSteal, Map.of());
        }

        public static final Machine UNKNOWN = new Machine(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

        /** The host's share of the server's CPUs' time, or of the machine's when those are unknown; NaN unknown. */
        public double steal() {
            return Double.isNaN(serverCpusSteal) ? hostSteal : serverCpusSteal;
        }
    }

    public Timeline {
        seconds = List.copyOf(seconds);
    }

    /** Adds up the threads' seconds (their histograms, so the percentiles are those of all answers). */
    static Timeline merge(List<TimelineRecorder> threads) {
        if (threads.isEmpty()) {
            return EMPTY;
        }
        int n = 0;
        for (TimelineRecorder t : threads) {
            n = Math.max(n, t.seconds());
        }
        List<Second> out = new ArrayList<>(n);
        IntCountsHistogram h = TimelineRecorder.newSecondHistogram();
        for (int i = 0; i < n; i++) {
            h.reset();
            long completed = 0;
            long over = 0;
            long max = 0;
            for (TimelineRecorder t : threads) {
                if (i < t.seconds()) {
                    completed += t.completed(i);
                    over += t.over(i);
                    max = Math.max(max, t.max(i));
                    h.add(t.latency(i));
                }
            }
            boolean any = h.getTotalCount() > 0;
            out.add(new Second(completed, over, any ? h.getValueAtPercentile(50) : 0,
                    any ? h.getValueAtPercentile(99) : 0, max));
        }
        return new Timeline(threads.get(0).thresholdMicros(), out);
    }

    /**
     * This timeline with {@code perSecond.get(i)} as second i's machine figures (seconds past the list's end keep
     * theirs).
     */
    Timeline withMachine(List<Machine> perSecond) {
        List<Second> out = new ArrayList<>(seconds.size());
        for (int i = 0; i < seconds.size(); i++) {
            Second s = seconds.get(i);
            out.add(i < perSecond.size()
                    ? new Second(s.completed(), s.overThreshold(), s.p50(), s.p99(), s.max(), perSecond.get(i)) : s);
        }
        return new Timeline(thresholdMicros, out);
    }

    /** Answers in all seconds. */
    public long completed() {
        return seconds.stream().mapToLong(Second::completed).sum();
    }

    /** Answers above the threshold in all seconds. */
    public long overThreshold() {
        return overThreshold(seconds.size());
    }

    /** Answers above the threshold in the first {@code n} seconds. */
    public long overThreshold(int n) {
        return seconds.stream().limit(Math.max(0, n)).mapToLong(Second::overThreshold).sum();
    }

    /** Seconds whose p99 is above {@code boundMicros}. */
    public int secondsAbove(long boundMicros) {
        return (int) seconds.stream().filter(s -> s.completed() > 0 && s.p99() > boundMicros).count();
    }

    /**
     * Of the seconds above {@code boundMicros}, those in which the host took more than {@code minSteal} of the
     * server's CPU time ({@link Machine#steal()}): which of a phase's misses the host had a hand in. A backlog a
     * stolen second leaves can keep the seconds after it above the bound too, so this counts a lower bound. -1 when
     * no second's steal is known.
     */
    public int secondsAboveWithSteal(long boundMicros, double minSteal) {
        if (seconds.stream().allMatch(s -> Double.isNaN(s.machine().steal()))) {
            return -1;
        }
        return (int) seconds.stream()
                .filter(s -> s.completed() > 0 && s.p99() > boundMicros && s.machine().steal() > minSteal).count();
    }

    /**
     * The {@code n} seconds with the highest p99, highest first (their indices from the start of the window; seconds
     * without answers left out): where a long window's p99 came from.
     */
    public List<Integer> worstSeconds(int n) {
        return IntStream.range(0, seconds.size()).filter(i -> seconds.get(i).completed() > 0).boxed()
                .sorted(Comparator.comparingLong((Integer i) -> seconds.get(i).p99()).reversed()).limit(n).toList();
    }

    /**
     * The worst {@code n} seconds above {@code boundMicros}, one text each: index (from 1), p99, max, answers, and the
     * server's CPU and the host's steal in that second where known ("s14 p99 141ms max 190ms (1498 answers; server
     * 1.00 cores, 0.12 background: rocksdb:low 0.10, rocksdb:high 0.02; host steal 0.4%, 0.8% of the server's
     * CPU)"). Background threads that used under 0.01 cores of the second are not named.
     */
    public List<String> worstSecondsText(int n, long boundMicros) {
        List<String> out = new ArrayList<>();
        for (int i : worstSeconds(n)) {
            Second s = seconds.get(i);
            if (s.p99() <= boundMicros) {
                continue;
            }
            Machine m = s.machine();
            StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "s%d p99 %s max %s (%d answers", i + 1,
                    Units.timeMicros(s.p99()), Units.timeMicros(s.max()), s.completed()));
            if (!Double.isNaN(m.serverCores())) {
                t.append(String.format(Locale.ROOT, "; server %.2f cores", m.serverCores()));
                if (!Double.isNaN(m.serverBackgroundCores())) {
                    t.append(String.format(Locale.ROOT, ", %.2f background", m.serverBackgroundCores()));
                    String sep = ": ";
                    for (Map.Entry<String, Double> thread : m.backgroundThreads().entrySet()) {
                        if (thread.getValue() >= 0.01) {
                            t.append(sep).append(String.format(Locale.ROOT, "%s %.2f", thread.getKey(),
                                    thread.getValue()));
                            sep = ", ";
                        }
                    }
                }
            }
            if (!Double.isNaN(m.hostSteal())) {
                t.append(String.format(Locale.ROOT, "; host steal %.1f%%", m.hostSteal() * 100));
                if (!Double.isNaN(m.serverCpusSteal())) {
                    t.append(String.format(Locale.ROOT, ", %.1f%% of the server's CPU", m.serverCpusSteal() * 100));
                }
            }
            out.add(t.append(')').toString());
        }
        return out;
    }

    /**
     * Seconds from the start of the window to the first second with answers and a p99 within {@code boundMicros}
     * (0: the first second already was); -1 if no second was.
     */
    public int recoverySeconds(long boundMicros) {
        for (int i = 0; i < seconds.size(); i++) {
            Second s = seconds.get(i);
            if (s.completed() > 0 && s.p99() <= boundMicros) {
                return i;
            }
        }
        return -1;
    }
}
