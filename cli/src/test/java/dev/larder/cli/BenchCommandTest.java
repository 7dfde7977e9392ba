package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code larder bench} flags in-process: help, validation (exit 2 naming the flag), and one short real run. */
class BenchCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cmd = Larder.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        return cmd.execute(args);
    }

    @Test
    void helpListsTheFlags() {
        assertEquals(0, run("bench", "--help"));
        assertTrue(out.toString().contains("--rate"), out.toString());
        assertTrue(out.toString().contains("sweep"), out.toString());
        assertEquals(0, run("bench", "sweep", "--help"));
        assertTrue(out.toString().contains("--slo"), out.toString());
        assertTrue(out.toString().contains(">= 99% of the target rate achieved"), out.toString());
        assertEquals(0, run("bench", "tail", "--help"));
        assertTrue(out.toString().contains("--phase-duration"), out.toString());
        assertTrue(out.toString().contains("--sustainable"), out.toString());
        assertFalse(err.toString().contains("WARN"), err.toString()); // picocli could format every description
    }

    @Test
    void badFlagsExitTwoNamingTheFlag() {
        assertEquals(2, run("bench", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--rate"), err.toString());
        assertEquals(2, run("bench", "-R", "10", "--mix", "get=abc", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--mix"), err.toString());
        assertEquals(2, run("bench", "-R", "fast", "http://127.0.0.1:1"));
        assertEquals(2, run("bench", "-R", "10", "-c", "0", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--connections: 0 (expected: > 0)"), err.toString());
        assertEquals(2, run("bench", "-R", "10", "--arrivals", "burst", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--arrivals: 'burst' (expected uniform or poisson)"), err.toString());
        assertEquals(2, run("bench", "tail", "--nginx-sustainable", "--nginx", "http://127.0.0.1:2",
                "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("nginx-sustainable: needs --nginx URL and --sustainable"), err.toString());
        assertEquals(2, run("bench", "tail", "--sustainable-ops", "get", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--sustainable-ops: needs --sustainable"), err.toString());
        assertEquals(2, run("bench", "tail", "--sustainable", "--sustainable-ops", "mix", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("sustainable-ops: 'mix' (expected: get, put or get,put)"), err.toString());
        assertEquals(2, run("bench", "-R", "10", "--profile", "gpu", "http://127.0.0.1:1"));
        assertEquals(2, run("bench", "-R", "10", "ftp://127.0.0.1:1"));
        assertEquals(2, run("bench", "-R", "10"));
        assertEquals(2, run("bench", "sweep", "--from", "10k", "--to", "1k", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--to"), err.toString());
        assertEquals(2, run("bench", "sweep", "--from", "1k", "--to", "2k", "--slo", "p99=10", "http://127.0.0.1:1"));
    }

    @Test
    void unreachableServerExitsOne() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertEquals(1, run("bench", "-R", "10", "-d", "1s", "--warmup", "0", "http://127.0.0.1:" + port));
        assertTrue(err.toString().contains("larder bench: cannot connect to 127.0.0.1:" + port), err.toString());
    }

    @Test
    void shortRunPrintsWrk2TextAndWritesJson() throws Exception {
        HttpServer server = okServer(0);
        try {
            Path json = dir.resolve("run.json");
            int code = run("bench", "-R", "50", "-c", "4", "-d", "1s", "--warmup", "200ms", "-w", "url",
                    "--json", json.toString(), "http://127.0.0.1:" + server.getAddress().getPort() + "/");
            assertEquals(0, code, out + "\n" + err);
            String text = out.toString();
            assertTrue(text.contains("  1 threads and 4 connections"), text);
            assertTrue(text.contains("Requests/sec:"), text);
            assertTrue(text.contains("  Status codes: 200="), text);
            String summary = Files.readString(json);
            assertTrue(summary.contains("\"command\": \"java -jar larder.jar bench -R 50 -c 4"), summary);
            assertTrue(summary.contains("\"target_rate\": 50"), summary);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void tailRejectsBadInputWithExitTwo() {
        assertEquals(2, run("bench", "tail", "--load", "0", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--load: 0.0 (expected: 0 < load <= 1"), err.toString());
        assertEquals(2, run("bench", "tail", "--load", "1.5", "http://127.0.0.1:1"));
        assertEquals(2, run("bench", "tail", "--phase-duration", "0", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--phase-duration: PT0S (expected: > 0)"), err.toString());
        assertEquals(2, run("bench", "tail", "--hold", "0s", "http://127.0.0.1:1"));
        assertEquals(2, run("bench", "tail", "--phases", "put,fly", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--phases: 'fly'"), err.toString());
        assertEquals(2, run("bench", "tail", "--mix", "get=9,range=1", "http://127.0.0.1:1"));
        assertEquals(2, run("bench", "tail", "-w", "put", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--workload: the phases choose the requests"), err.toString());
        assertEquals(2, run("bench", "tail", "--compare", "a=", "http://127.0.0.1:1"));
        assertEquals(2, run("bench", "tail", "--nginx", "ftp://x", "http://127.0.0.1:1"));
        assertEquals(2, run("bench", "tail", "--rates", "put=fast", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--rates: 'put=fast' (expected kind=req/s"), err.toString());
        assertEquals(2, run("bench", "tail"));
        assertTrue(err.toString().contains("--url: missing"), err.toString());
        assertEquals(2, run("bench", "tail", "--speed-probe", "1s", "http://127.0.0.1:1"));
        assertTrue(err.toString().contains("--speed-probe: needs --nginx URL"), err.toString());
        assertEquals(2, run("bench", "tail", "--speed-probe", "-1s", "--nginx", "http://127.0.0.1:2",
                "http://127.0.0.1:1"));
    }

    @Test
    void tailRunsEndToEndAndWritesTextJsonAndReport() throws Exception {
        // Answers one request at a time, 1 ms each: capacity about 1000 req/s, light on a shared machine. It stands
        // in for nginx too (it answers any method and path).
        HttpServer server = okServer(1);
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort();
            Path json = dir.resolve("tail.json");
            Path report = dir.resolve("report");
            int code = run("bench", "tail", "-c", "4", "--warmup", "300ms", "--capacity-duration", "500ms",
                    "--phase-duration", "1s", "--load", "0.5", "--rates", "put=200", "--nginx", url,
                    "--speed-probe", "300ms", "--json", json.toString(),
                    "--report", report.toString(), url);
            assertEquals(0, code, out + "\n" + err);
            String text = out.toString();
            assertTrue(text.contains("capacity PUT (closed loop): "), text);
            assertTrue(text.contains("phases: PUT 200 -> GET "), text);
            assertTrue(text.contains(" # op        rate   achieved"), text);
            assertTrue(text.contains("nginx p99"), text);
            assertTrue(text.contains("Machine speed: nginx closed-loop GET for 300ms: "), text);
            String summary = Files.readString(json);
            assertTrue(summary.contains("\"command\": \"java -jar larder.jar bench tail -c 4"), summary);
            assertTrue(summary.contains("\"kind\": \"MIX\""), summary);
            assertTrue(summary.contains("rates=put=200"), summary);
            assertTrue(Files.readString(report.resolve("index.html")).contains("Latency over time"));
        } finally {
            server.stop(0);
        }
    }

    // Answers every request "ok" (201 for a PUT) on its one dispatcher thread, after sleeping sleepMillis.
    private static HttpServer okServer(int sleepMillis) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            if (sleepMillis > 0) {
                try {
                    Thread.sleep(sleepMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(exchange.getRequestMethod().equals("PUT") ? 201 : 200, body.length);
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(body);
            }
        });
        server.start();
        return server;
    }

    @Test
    void valueSizesTakeUnits() {
        assertEquals(4096, BenchCommand.LoadFlags.valueSize("4k").max());
        assertEquals(64, BenchCommand.LoadFlags.valueSize("64-1KiB").min());
        assertEquals(1024, BenchCommand.LoadFlags.valueSize("64-1KiB").max());
        assertEquals(1500.0, new BenchCommand.RateConverter().convert("1.5k"));
    }
}
