package dev.larder.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Everything a tail run writes once it has measured: the text summary, .hgrm files, the report, the JSON. */
final class TailOutputs {

    private TailOutputs() {
    }

    static void write(TailResult result, PrintStream text, PrintStream stdout) {
        TailText.print(text, result);
        BenchOptions options = result.options();
        try {
            if (options.hgrm() != null) {
                for (int i = 0; i < result.phases().size(); i++) {
                    TailResult.PhaseResult p = result.phases().get(i);
                    Path file = Bench.suffixed(options.hgrm(), (i + 1) + "-" + p.kind().flag());
                    Hgrm.write(file, p.larder());
                    text.println("  hgrm: " + file);
                }
            }
            if (options.reportDir() != null) {
                Path index = TailReport.write(options.reportDir(), result);
                text.println("  report: " + index.toAbsolutePath().normalize());
            }
            if (options.json() != null) {
                JsonSummary.write(options, TailJson.of(result), text, stdout);
            }
        } catch (IOException | UncheckedIOException e) {
            throw new BenchException("cannot write results: " + e.getMessage(), e);
        }
    }
}
