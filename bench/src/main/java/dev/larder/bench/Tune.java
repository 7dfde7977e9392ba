package dev.larder.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code larder tune}: searches server flags for the highest breakdown rate, then writes what it found. */
public final class Tune {

    private Tune() {
    }

    /** The budget cannot hold the default and one candidate at the shortest window. */
    public static final class BudgetTooSmall extends RuntimeException {
        BudgetTooSmall(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Runs the search and writes the outputs: the ranked table and winning flags to {@code out} (to {@code err} with
     * {@code --json -}, when the JSON owns {@code out}), the progress bar to {@code err}, bench's own text of every
     * run to {@code report/bench.log} when there is a report.
     *
     * @throws BudgetTooSmall when the budget cannot hold the default and one candidate (nothing was started)
     */
    public static void run(TuneOptions options, PrintStream out, PrintStream err) {
        PrintStream text = options.jsonToStdout() ? err : out;
        PrintStream benchLog = Tuner.discard();
        try {
            if (options.reportDir() != null) {
                Files.createDirectories(options.reportDir());
                benchLog = new PrintStream(Files.newOutputStream(options.reportDir().resolve("bench.log")), true,
                        java.nio.charset.StandardCharsets.UTF_8);
            }
            TuneResult result;
            try {
                result = Tuner.run(options, err, benchLog);
            } catch (Tuner.TooSmallBudget e) {
                throw new BudgetTooSmall(e.getMessage(), e);
            }
            text.print(TuneReport.text(result));
            if (options.json() != null) {
                String json = TuneReport.json(result);
                if (options.jsonToStdout()) {
                    out.println(json);
                } else {
                    Files.writeString(options.json(), json + "\n");
                    text.println("JSON: " + options.json());
                }
            }
            if (options.reportDir() != null) {
                Path index = TuneReport.html(result, options.reportDir());
                text.println("report: " + index);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            benchLog.close();
        }
    }
}
