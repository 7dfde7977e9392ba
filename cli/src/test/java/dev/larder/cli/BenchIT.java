package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code larder bench} from the fat jar against real Larder servers: prefill + GETs, and a two-server sweep. */
class BenchIT {

    @TempDir
    Path dir;

    @Test
    void prefilledGetsAnswer200AndTheJsonSaysSo() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"))) {
            Path json = dir.resolve("get.json");
            LarderProcess bench = LarderProcess.run("bench", "-R", "200", "-c", "8", "-d", "2s", "--warmup", "1s",
                    "--prefill", "--keys", "500", "-w", "get", "--json", json.toString(), larder.baseUrl());
            assertEquals(0, bench.awaitExit(Duration.ofSeconds(90)), bench.output());
            assertTrue(bench.output().contains("prefill: PUT k1..k500: 500 answers"), bench.output());
            assertTrue(bench.output().contains("Requests/sec:"), bench.output());
            String summary = Files.readString(json);
            assertTrue(summary.contains("\"200\": "), summary);
            assertFalse(summary.contains("\"404\": "), summary);
        }
    }

    @Test
    void aRunAgainstLarderOnThisMachineReportsItsCpuPerAnswer() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"))) {
            Path json = dir.resolve("cpu.json");
            LarderProcess bench = LarderProcess.run("bench", "-R", "2000", "-c", "8", "-d", "4s", "--warmup", "1s",
                    "-w", "put", "--json", json.toString(), larder.baseUrl());
            assertEquals(0, bench.awaitExit(Duration.ofSeconds(90)), bench.output());
            String out = bench.output();
            Matcher line = Pattern.compile("Server CPU: ([0-9.]+) cores, ([0-9.]+)us per answer").matcher(out);
            assertTrue(line.find(), out);
            double cores = Double.parseDouble(line.group(1));
            double micros = Double.parseDouble(line.group(2));
            // The server's JVM, not the generator's: 2000 PUTs a second cost it something, and less than every core.
            assertTrue(cores > 0 && cores < Runtime.getRuntime().availableProcessors(), out);
            assertEquals(cores * 1e6 / 2000, micros, micros * 0.1 + 1, out);
            String summary = Files.readString(json);
            assertTrue(summary.contains("\"server_cpu\": {"), summary);
        }
    }

    @Test
    void sweepComparesTwoLaunchedFlagSetsInOneReport() throws Exception {
        Path report = dir.resolve("report");
        LarderProcess bench = LarderProcess.run("bench", "sweep", "--from", "100", "--to", "300", "--step", "200",
                "--refine", "0", "--pause", "0", "-c", "8", "-d", "1s", "--warmup", "500ms", "-w", "put",
                "--slo", "p99=10s", "--keep-going", "--compare", "sync=--workers 0", "--compare", "async=--workers 2",
                "--report", report.toString());
        assertEquals(0, bench.awaitExit(Duration.ofSeconds(180)), bench.output());
        String out = bench.output();
        assertTrue(out.contains("== sync (http://127.0.0.1:"), out);
        assertTrue(out.contains("== async (http://127.0.0.1:"), out);
        assertTrue(out.contains("server: larder started: "), out);
        // The servers bench starts run with the JIT flags the README's command and the image use.
        assertTrue(out.contains("jit-uncommon-traps=off"), out);
        assertTrue(out.contains("workers=0 (synchronous"), out);
        String html = Files.readString(report.resolve("index.html"));
        assertTrue(html.contains(">sync &mdash; ") && html.contains(">async &mdash; "), "both servers in the report");
        assertTrue(html.contains("launched: larder serve --workers 0"), "settings");
        // --keep-going: both rates run whatever a cold server does to the first one.
        assertTrue(Files.exists(report.resolve("hgrm/async-100.hgrm")));
        assertTrue(Files.exists(report.resolve("hgrm/async-300.hgrm")));
    }

    @Test
    void tailRunsItsPhasesAgainstARealServer() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"))) {
            Path json = dir.resolve("tail.json");
            Path report = dir.resolve("tail");
            LarderProcess bench = LarderProcess.run("bench", "tail", "-c", "8", "--warmup", "1s",
                    "--capacity-duration", "1s", "--phase-duration", "1s", "--load", "0.25", "--json", json.toString(),
                    "--report", report.toString(), larder.baseUrl());
            assertEquals(0, bench.awaitExit(Duration.ofSeconds(120)), bench.output());
            String out = bench.output();
            assertTrue(out.contains("capacity GET (closed loop): "), out);
            assertTrue(out.matches("(?s).*\\n\\s+5 GET .*"), out);
            String summary = Files.readString(json);
            // The GETs read what the PUTs wrote (uniform over the ids written so far), so they find it.
            assertTrue(summary.contains("\"200\": "), summary);
            assertTrue(summary.contains("\"201\": "), summary);
            assertTrue(Files.readString(report.resolve("index.html")).contains("Latency over time"));
        }
    }
}
