package dev.larder.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * HdrHistogram percentile-distribution files ({@code .hgrm}, values in milliseconds), the format HdrHistogram's
 * plotter (hdrhistogram.github.io/HdrHistogram/plotFiles.html) and most tooling read: the corrected latency in the
 * named file, the uncorrected one beside it.
 */
final class Hgrm {

    private Hgrm() {
    }

    static void write(Path file, RunResult r) throws IOException {
        write(file, r.corrected());
        write(uncorrectedName(file), r.uncorrected());
    }

    static void write(Path file, org.HdrHistogram.Histogram h) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (PrintStream ps = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8)) {
            h.outputPercentileDistribution(ps, 1000.0);
        }
    }

    /** {@code run.hgrm} → {@code run-uncorrected.hgrm}. */
    static Path uncorrectedName(Path file) {
        return Bench.suffixed(file, "uncorrected");
    }
}
