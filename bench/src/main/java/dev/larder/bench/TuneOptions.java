package dev.larder.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * What {@code larder tune} was asked, validated by the CLI layer.
 *
 * @param slo           what a rate must hold to count (bench's definition: bounds, achieved >= 99%, errors < 0.1%)
 * @param workload      the load each candidate is measured with
 * @param prefill       write the key space once per server before measuring (reads)
 * @param budget        wall-clock time the whole search may take
 * @param dataDir       where the launched servers' data directories go ({@code null}: the temporary directory)
 * @param serverCpus    {@code taskset -c} list for the servers ({@code null}: not pinned)
 * @param serverCommand how to run {@code larder} (this JVM's class path)
 * @param serverArgs    flags every candidate gets, before its own
 * @param dimensions    the flags searched
 * @param repeats       how often the finalists are measured again, for the spread
 * @param hold          how long each finalist must hold its rate in the hold round ({@link Duration#ZERO}: no hold
 *                      round)
 * @param connections   load-generator connections
 * @param json          JSON summary file, {@code -} for stdout, or {@code null}
 * @param reportDir     HTML report directory, or {@code null}
 * @param commandLine   the command as typed, for the report
 */
public record TuneOptions(Slo slo, Workload workload, boolean prefill, Duration budget, Path dataDir,
                          String serverCpus, List<String> serverCommand, List<String> serverArgs,
                          Set<TuneSpace.Dimension> dimensions, int repeats, Duration hold, int connections, Path json,
                          Path reportDir, String commandLine) {

    /** The shortest measured window the search uses; below it one rate says too little. */
    public static final Duration MIN_WINDOW = Duration.ofSeconds(1);

    public TuneOptions {
        serverCommand = List.copyOf(serverCommand);
        serverArgs = List.copyOf(serverArgs);
        dimensions = Set.copyOf(dimensions);
        if (repeats < 1 || repeats > 10) {
            throw new IllegalArgumentException("repeats: " + repeats + " (expected: 1..10)");
        }
        if (hold.isNegative() || (!hold.isZero() && hold.compareTo(MIN_WINDOW) < 0)) {
            throw new IllegalArgumentException("hold: " + hold + " (expected: 0s for none, or at least "
                    + MIN_WINDOW.toSeconds() + "s)");
        }
        if (budget.isNegative() || budget.isZero()) {
            throw new IllegalArgumentException("budget: " + budget + " (expected: > 0)");
        }
    }

    /** Parses {@code p99<=10ms} (the spelling) as well as bench's {@code p99=10ms}. */
    public static Slo parseSlo(String text) {
        return Slo.parse(text.replace("<=", "="));
    }

    /** Parses {@code rejection,workers}; every dimension when {@code all}. */
    public static Set<TuneSpace.Dimension> parseDimensions(String text) {
        return "all".equalsIgnoreCase(text.trim()) ? Set.of(TuneSpace.Dimension.values())
                : TuneSpace.Dimension.parse(text);
    }

    boolean jsonToStdout() {
        return json != null && json.toString().equals("-");
    }
}
