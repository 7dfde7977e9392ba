package dev.larder.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Prints a run in wrk2's layout ({@code wrk -L -U}): thread stats, the corrected latency distribution with its
 * detailed percentile spectrum, the uncorrected distribution, totals, {@code Requests/sec}, {@code Transfer/sec}.
 * Scripts that parse wrk2 output keep working; Larder's additions (status codes, generator lag, warnings) come after
 * {@code Transfer/sec}.
 */
public final class Wrk2Format {

    private static final double[] PERCENTILES = {50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0};
    private static final String RULE = "----------------------------------------------------------";

    private Wrk2Format() {
    }

    /** The "Running 30s test @ url" header and the thread/connection line. */
    public static void header(PrintStream out, RunResult r, java.time.Duration duration) {
        out.printf("Running %s test @ %s%n", Units.durationHeader(duration), r.url());
        out.printf("  %d threads and %d connections%n", r.threads(), r.connections());
    }

    /** Everything after the header. */
    public static void body(PrintStream out, RunResult r) {
        out.printf("  Target rate: %s, workload: %s%n", r.rateLabel(), r.workload());
        out.printf("  Thread Stats%6s%11s%8s%12s%n", "Avg", "Stdev", "Max", "+/- Stdev");
        Histogram h = r.corrected();
        double mean = h.getTotalCount() == 0 ? 0 : h.getMean();
        double stdev = h.getTotalCount() == 0 ? 0 : h.getStdDeviation();
        out.print("    " + String.format(Locale.ROOT, "%-10s", "Latency"));
        out.print(Units.column(Units.timeMicros(mean), 8));
        out.print(Units.column(Units.timeMicros(stdev), 10));
        out.print(Units.column(Units.timeMicros(h.getMaxValue()), 9));
        out.printf(Locale.ROOT, "%8.2f%%%n", withinStdev(h, mean, stdev));
        double[] samples = r.rateSamples();
        double rMean = mean(samples);
        double rStdev = stdev(samples, rMean);
        out.print("    " + String.format(Locale.ROOT, "%-10s", "Req/Sec"));
        out.print(Units.column(Units.metric(rMean), 8));
        out.print(Units.column(Units.metric(rStdev), 10));
        out.print(Units.column(Units.metric(max(samples)), 9));
        out.printf(Locale.ROOT, "%8.2f%%%n", withinStdev(samples, rMean, rStdev));

        latency(out, h, "Recorded Latency", true);
        out.println(RULE);
        out.println();
        latency(out, r.uncorrected(), "Uncorrected Latency (measured without taking delayed starts into account)",
                false);
        out.println(RULE);

        out.printf("  %d requests in %s, %sB read%n", r.completed(), Units.timeMicros(r.seconds() * 1e6),
                Units.binary(r.bytes()));
        SocketErrors e = r.errors();
        if (e.total() > 0) {
            out.printf("  Socket errors: connect %d, read %d, write %d, timeout %d%n", e.connect(), e.read(),
                    e.write(), e.timeout());
        }
        if (r.non2xx3xx() > 0) {
            out.printf("  Non-2xx or 3xx responses: %d%n", r.non2xx3xx());
        }
        out.printf(Locale.ROOT, "Requests/sec: %9.2f%n", r.achievedRate());
        out.printf("Transfer/sec: %10sB%n", Units.binary(r.seconds() > 0 ? r.bytes() / r.seconds() : 0));

        StringBuilder codes = new StringBuilder();
        for (Map.Entry<Integer, Long> c : r.statusCounts().entrySet()) {
            codes.append(' ').append(c.getKey()).append('=').append(c.getValue());
        }
        out.println("  Status codes:" + (codes.length() == 0 ? " none" : codes));
        if (!r.closedLoop()) {
            out.printf(Locale.ROOT, "  Achieved: %.2f%% of the target rate; generator send lag: %s%n",
                    100 * r.achievedRatio(), r.lagSummary());
        }
        if (!Double.isNaN(r.serverCores())) {
            out.printf(Locale.ROOT, "  Server CPU: %.2f cores%s, %s per answer (processes listening on the target's "
                    + "port)%n", r.serverCores(), Double.isNaN(r.serverBackgroundCores()) ? ""
                            : String.format(Locale.ROOT, " (%.2f of them lower-priority background threads)",
                                    r.serverBackgroundCores()),
                    Units.cpuPerAnswer(r.serverMicrosPerRequest(), "-"));
        }
        for (ProfileResult p : r.profiles()) {
            out.println(p.ok() ? "  Profile " + p.event() + " (" + p.seconds() + "s): " + p.file()
                    : "  Profile " + p.event() + ": " + p.error());
        }
        for (Warning w : r.warnings()) {
            out.println((w.kind() == Warning.Kind.CLOSED_LOOP ? "  NOTE: " : "  WARNING: ") + w.message());
        }
    }

    private static void latency(PrintStream out, Histogram h, String description, boolean spectrum) {
        out.printf("  Latency Distribution (HdrHistogram - %s)%n", description);
        for (double p : PERCENTILES) {
            long v = h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(p);
            out.printf(Locale.ROOT, "%7.3f%%", p);
            out.print(Units.column(Units.timeMicros(v), 10));
            out.println();
        }
        if (spectrum) {
            out.printf("%n%s%n", "  Detailed Percentile spectrum:");
            spectrum(out, h);
        }
    }

    /** HdrHistogram's C "classic" percentile table in milliseconds, byte for byte as wrk2 prints it. */
    public static void spectrum(PrintStream out, Histogram h) {
        out.printf("%12s %12s %12s %12s%n%n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
        if (h.getTotalCount() > 0) {
            for (HistogramIterationValue v : h.percentiles(5)) {
                double p = v.getPercentileLevelIteratedTo() / 100.0;
                if (p < 1.0) {
                    out.printf(Locale.ROOT, "%12.3f %12f %12d %12.2f%n", v.getValueIteratedTo() / 1000.0, p,
                            v.getTotalCountToThisValue(), 1 / (1.0 - p));
                } else {
                    out.printf(Locale.ROOT, "%12.3f %12f %12d %12s%n", v.getValueIteratedTo() / 1000.0, p,
                            v.getTotalCountToThisValue(), "inf");
                }
            }
        }
        double mean = h.getTotalCount() == 0 ? 0 : h.getMean() / 1000.0;
        double stdev = h.getTotalCount() == 0 ? 0 : h.getStdDeviation() / 1000.0;
        out.printf(Locale.ROOT, "#[Mean    = %12.3f, StdDeviation   = %12.3f]%n", mean, stdev);
        out.printf(Locale.ROOT, "#[Max     = %12.3f, Total count    = %12d]%n", h.getMaxValue() / 1000.0,
                h.getTotalCount());
        out.printf(Locale.ROOT, "#[Buckets = %12d, SubBuckets     = %12d]%n", bucketCount(h), subBucketCount(h));
    }

    static int subBucketCount(Histogram h) {
        int digits = h.getNumberOfSignificantValueDigits();
        return 1 << (int) Math.ceil(Math.log(2 * Math.pow(10, digits)) / Math.log(2));
    }

    // AbstractHistogram's getBucketsNeededToCoverValue, which HdrHistogram does not expose.
    static int bucketCount(Histogram h) {
        int unitMagnitude = (int) Math.floor(Math.log(h.getLowestDiscernibleValue()) / Math.log(2));
        long smallestUntrackable = (long) subBucketCount(h) << unitMagnitude;
        int buckets = 1;
        while (smallestUntrackable <= h.getHighestTrackableValue()) {
            if (smallestUntrackable > Long.MAX_VALUE / 2) {
                return buckets + 1;
            }
            smallestUntrackable <<= 1;
            buckets++;
        }
        return buckets;
    }

    static double withinStdev(Histogram h, double mean, double stdev) {
        if (h.getTotalCount() == 0) {
            return 0;
        }
        long lo = (long) Math.max(0, Math.floor(mean - stdev));
        long hi = (long) Math.ceil(mean + stdev);
        return 100.0 * h.getCountBetweenValues(lo, Math.min(hi, h.getHighestTrackableValue())) / h.getTotalCount();
    }

    static double mean(double[] xs) {
        double sum = 0;
        for (double x : xs) {
            sum += x;
        }
        return xs.length == 0 ? 0 : sum / xs.length;
    }

    static double stdev(double[] xs, double mean) {
        if (xs.length < 2) {
            return 0;
        }
        double sum = 0;
        for (double x : xs) {
            sum += (x - mean) * (x - mean);
        }
        return Math.sqrt(sum / (xs.length - 1));
    }

    static double max(double[] xs) {
        double m = 0;
        for (double x : xs) {
            m = Math.max(m, x);
        }
        return m;
    }

    static double withinStdev(double[] xs, double mean, double stdev) {
        if (xs.length == 0) {
            return 0;
        }
        int n = 0;
        for (double x : xs) {
            if (x >= mean - stdev && x <= mean + stdev) {
                n++;
            }
        }
        return 100.0 * n / xs.length;
    }
}
