package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
            // Started as `java -Xmx256m -jar larder.jar bench`, without the JIT flags: it ran itself again with them.
            assertTrue(summary.contains("JIT uncommon traps off"), summary);
        }
    }

    @Test
    void theRelaunchedGeneratorsExitStatusIsTheCommands() throws Exception {
        LarderProcess bench = LarderProcess.run("bench", "--no-such-flag", "http://127.0.0.1:1/");
        assertEquals(2, bench.awaitExit(Duration.ofSeconds(60)), bench.output());
        assertTrue(bench.output().contains("--no-such-flag"), bench.output());
    }

    @Test
    void aSigtermStopsTheRelaunchedGeneratorAndTheServerItStarted() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> dataBefore = launchedDataDirs(tmp);
        LarderProcess bench = LarderProcess.run("bench", "-R", "500", "-c", "4", "-d", "120s", "--warmup", "1s",
                "--compare", "sigterm-probe=");
        ProcessHandle parent = ProcessHandle.of(bench.pid()).orElseThrow();
        // The relaunched generator and, under it, the server it launched, once that server is running.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<ProcessHandle> tree = List.of();
        while (System.nanoTime() < deadline && tree.stream().noneMatch(BenchIT::isServer)) {
            Thread.sleep(200);
            tree = parent.descendants().toList();
        }
        assertTrue(tree.stream().anyMatch(BenchIT::isServer), "no launched server under the bench: " + tree
                + "\n" + bench.output());
        bench.terminate();
        bench.awaitExit(Duration.ofSeconds(90));
        for (ProcessHandle p : tree) {
            p.onExit().get(60, TimeUnit.SECONDS);
            assertFalse(p.isAlive(), p + " outlived the SIGTERM'd bench: " + p.info().commandLine().orElse(""));
        }
        assertEquals(dataBefore, launchedDataDirs(tmp), "the launched server's data directory was deleted");
    }

    private static List<Path> launchedDataDirs(Path tmp) throws java.io.IOException {
        try (var paths = Files.list(tmp)) {
            return paths.filter(p -> p.getFileName().toString().startsWith("larder-bench-sigterm-probe")).sorted()
                    .toList();
        }
    }

    // `serve --port 0 --data-dir ...`, not the `serve --help` the bench runs first to learn the build's flags.
    private static boolean isServer(ProcessHandle p) {
        return p.info().arguments().map(a -> List.of(a).contains("serve") && List.of(a).contains("--data-dir"))
                .orElse(false);
    }

    @Test
    void aRunAgainstLarderOnThisMachineReportsItsCpuPerAnswer() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"))) {
            Path json = dir.resolve("cpu.json");
            Duration before = ProcessHandle.of(larder.pid()).orElseThrow().info().totalCpuDuration().orElseThrow();
            LarderProcess bench = LarderProcess.run("bench", "-R", "2000", "-c", "8", "-d", "4s", "--warmup", "1s",
                    "-w", "put", "--json", json.toString(), larder.baseUrl());
            assertEquals(0, bench.awaitExit(Duration.ofSeconds(90)), bench.output());
            Duration after = ProcessHandle.of(larder.pid()).orElseThrow().info().totalCpuDuration().orElseThrow();
            String out = bench.output();
            assertTrue(out.matches("(?s).*Server CPU: [0-9.]+ cores \\([0-9.]+ of them lower-priority background "
                    + "threads\\), [0-9.]+us per answer.*"), out);
            String summary = Files.readString(json);
            Matcher cpu = Pattern.compile("\"server_cpu\": \\{\\s*\"cores\": ([0-9.]+),").matcher(summary);
            assertTrue(cpu.find(), summary);
            double cores = Double.parseDouble(cpu.group(1));
            // The server's JVM, not the generator's: its 4 s window cannot hold more CPU than the server used over the
            // whole bench run (measured here from outside), and 2000 PUTs a second cost it something.
            double serverSeconds = (after.toNanos() - before.toNanos()) / 1e9;
            assertTrue(cores > 0 && cores * 4 <= serverSeconds + 0.05, cores + " cores x 4 s against " + serverSeconds
                    + " s of the server's CPU over the run");
            // Larder's RocksDB threads run at nice 19 and are read apart; whatever they did is part of the whole.
            Matcher background = Pattern.compile("\"background_cores\": ([0-9.]+)").matcher(summary);
            assertTrue(background.find(), summary);
            double backgroundCores = Double.parseDouble(background.group(1));
            assertTrue(backgroundCores >= 0 && backgroundCores <= cores, backgroundCores + " of " + cores);
        }
    }

    @Test
    void sweepComparesTwoLaunchedFlagSetsInOneReport() throws Exception {
        Path report = dir.resolve("report");
        LarderProcess bench = LarderProcess.run("bench", "sweep", "--from", "100", "--to", "300", "--step", "200",
                "--refine", "0", "--pause", "0", "-c", "8", "-d", "1s", "--warmup", "500ms", "-w", "put",
                "--slo", "p99=10s", "--keep-going",
                // The short JIT warm-up the other process tests use: the full one holds each launch about 25 s.
                "--compare", "sync=--workers 0 --warmup-requests " + LarderProcess.SHORT_WARMUP_REQUESTS,
                "--compare", "async=--workers 2 --warmup-requests " + LarderProcess.SHORT_WARMUP_REQUESTS,
                "--report", report.toString());
        assertEquals(0, bench.awaitExit(Duration.ofSeconds(180)), bench.output());
        String out = bench.output();
        assertTrue(out.contains("== sync (http://127.0.0.1:"), out);
        assertTrue(out.contains("== async (http://127.0.0.1:"), out);
        assertTrue(out.contains("server: larder started: "), out);
        // The servers bench starts run with the JIT flags the README's command and the image use.
        assertTrue(out.contains("jit-uncommon-traps=off"), out);
        // ... and the README's young and old generations.
        assertTrue(out.contains("young-gen=1024MiB old-gen=256MiB tenuring=2"), out);
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
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--admin-port",
                Integer.toString(DashboardQueriesIT.freePort()))) {
            Path json = dir.resolve("tail.json");
            Path report = dir.resolve("tail");
            LarderProcess bench = LarderProcess.run("bench", "tail", "-c", "8", "--warmup", "1s",
                    "--capacity-duration", "1s", "--phase-duration", "1s", "--load", "0.25", "--arrivals", "poisson",
                    "--admin-url", larder.adminUrl(), "--json", json.toString(), "--report", report.toString(),
                    larder.baseUrl());
            assertEquals(0, bench.awaitExit(Duration.ofSeconds(120)), bench.output());
            String out = bench.output();
            assertTrue(out.contains("capacity GET (closed loop): "), out);
            assertTrue(out.matches("(?s).*\\n\\s+5 GET .*"), out);
            // Larder runs on this machine, so its CPU is read: each phase is set against its kind's saturated cost.
            assertTrue(out.contains("x sat: CPU per answer at the phase's fixed rate over CPU per answer at "
                    + "saturation"), out);
            String summary = Files.readString(json);
            assertTrue(summary.contains("arrivals=poisson"), summary);
            assertTrue(summary.matches("(?s).*\"cpu_over_saturated\": [0-9.]+,.*"), summary);
            // The server's write-stall counter is read through its admin port, so every phase has a figure (a few
            // PUTs at a quarter of capacity on an idle store: no stall expected, but a number, not null).
            assertTrue(out.contains("RocksDB write stalls (larder_rocksdb_write_stall_seconds_total, read at each "
                    + "phase boundary): 1 PUT "), out);
            assertEquals(5, Pattern.compile("\"write_stall_seconds\": [0-9.]+,").matcher(summary).results().count(),
                    summary);
            // The GETs read what the PUTs wrote (uniform over the ids written so far), so they find it.
            assertTrue(summary.contains("\"200\": "), summary);
            assertTrue(summary.contains("\"201\": "), summary);
            assertTrue(Files.readString(report.resolve("index.html")).contains("Latency over time"));
        }
    }
}
