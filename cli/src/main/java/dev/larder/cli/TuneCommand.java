package dev.larder.cli;

import dev.larder.bench.BenchException;
import dev.larder.bench.KeyDistribution;
import dev.larder.bench.Operation;
import dev.larder.bench.Slo;
import dev.larder.bench.Tune;
import dev.larder.bench.TuneOptions;
import dev.larder.bench.ValueSize;
import dev.larder.bench.Workload;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code larder tune}: finds the server flags with the highest breakdown rate for a workload and an SLO. */
@Command(name = "tune", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        description = {"Starts servers itself (pinned with --server-cpus), measures each candidate's breakdown point "
                + "(the highest rate holding the SLO) with the bench engine, and searches --rejection (adaptive "
                + "included), --workers, --queue-size, --io-threads and --max-queue-delay in rounds: one "
                + "dimension at a time, then the best few and their combination on longer windows, then the two "
                + "best and the default repeated for the spread; then each finalist holds its rate for --hold, "
                + "stepping down when it misses the SLO, and is ranked by the rate it held. Prints a ranked table and "
                + "the winning flags (also as LARDER_* variables); see docs/tuning.md."})
final class TuneCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--slo", defaultValue = "p99<=10ms",
            description = "What a rate must hold: p99<=10ms (or p99=10ms; several: p50<=2ms,p99<=10ms), plus "
                    + "achieved >= 99% and errors < 0.1% (default: ${DEFAULT-VALUE}).")
    String slo;

    @Option(names = {"-w", "--workload"}, defaultValue = "get",
            description = "get (keys written first), put, or mix (get=90,put=10, keys written first) "
                    + "(default: ${DEFAULT-VALUE}).")
    String workload;

    @Option(names = "--budget", defaultValue = "15m",
            description = "Wall-clock time for the whole search (default: ${DEFAULT-VALUE}); the windows are "
                    + "sized to fit it.")
    Duration budget;

    @Option(names = "--data-dir", description = "Where the servers' data directories go (default: the temporary "
            + "directory); each is deleted when its server stops.")
    Path dataDir;

    @Option(names = "--server-cpus", defaultValue = "1",
            description = "taskset -c list for the servers (default: ${DEFAULT-VALUE}; run tune itself on the "
                    + "other cores, e.g. taskset -c 0); 'none' leaves them unpinned.")
    String serverCpus;

    @Option(names = "--dimensions", defaultValue = "all",
            description = "Flags to search: all, or some of rejection, workers, queue-size, io-threads, "
                    + "max-queue-delay, inline-batch (default: ${DEFAULT-VALUE}).")
    String dimensions;

    @Option(names = "--server-args", defaultValue = "",
            description = "Flags every server gets before the candidate's own, e.g. '--sync'.")
    String serverArgs;

    @Option(names = "--repeats", defaultValue = "2",
            description = "How many more times the finalists and the default are measured (default: "
                    + "${DEFAULT-VALUE}).")
    int repeats;

    @Option(names = "--hold", defaultValue = "15s",
            description = "How long each finalist must hold the rate it ranks with, stepping down by 20% (at most "
                    + "3 holds) when it misses the SLO; the ranking uses the rate held (default: ${DEFAULT-VALUE}; "
                    + "0s: no hold round).")
    Duration hold;

    @Option(names = {"-c", "--connections"}, defaultValue = "64",
            description = "Load-generator connections (default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--keys", defaultValue = "100000", description = "Key space (default: ${DEFAULT-VALUE}).")
    long keys;

    @Option(names = "--json", description = "JSON summary to this file; '-' prints it on stdout (the text moves "
            + "to stderr).")
    Path json;

    @Option(names = "--report", description = "HTML report: DIR/index.html with the breakdown curves of the best "
            + "candidates and the default, and DIR/bench.log with every run's text.")
    Path report;

    @Override
    public Integer call() {
        TuneOptions options = options();
        PrintStream out = CommandSupport.printStream(spec.commandLine().getOut());
        PrintStream err = CommandSupport.printStream(spec.commandLine().getErr());
        try {
            Tune.run(options, out, err);
            return 0;
        } catch (Tune.BudgetTooSmall e) {
            throw new ParameterException(spec.commandLine(), "--budget: " + e.getMessage());
        } catch (BenchException e) {
            err.println("larder tune: " + e.getMessage());
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    TuneOptions options() {
        Slo objective;
        try {
            objective = TuneOptions.parseSlo(slo);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--slo: '" + slo + "' cannot be parsed ("
                    + e.getMessage() + "; expected e.g. p99<=10ms)");
        }
        Workload load;
        boolean prefill;
        switch (workload.trim().toLowerCase(Locale.ROOT)) {
            case "get" -> {
                load = Workload.of(Operation.GET, keys, KeyDistribution.UNIFORM, false, ValueSize.fixed(64));
                prefill = true;
            }
            case "put" -> {
                load = Workload.of(Operation.PUT, keys, KeyDistribution.UNIFORM, false, ValueSize.fixed(64));
                prefill = false;
            }
            case "mix" -> {
                load = new Workload(Workload.parseMix("get=90,put=10"), keys, KeyDistribution.UNIFORM, false,
                        ValueSize.fixed(64));
                prefill = true;
            }
            default -> throw new ParameterException(spec.commandLine(), "--workload: '" + workload
                    + "' (expected: get, put or mix)");
        }
        try {
            return new TuneOptions(objective, load, prefill, budget, dataDir,
                    "none".equalsIgnoreCase(serverCpus) ? null : serverCpus, ServerJvm.serverCommand(),
                    serverArgs.isBlank() ? List.of() : List.of(serverArgs.trim().split("\\s+")),
                    TuneOptions.parseDimensions(dimensions), repeats, hold, connections, json, report,
                    "java -jar larder.jar " + String.join(" ",
                            spec.commandLine().getParseResult().originalArgs()));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--" + e.getMessage());
        }
    }
}
