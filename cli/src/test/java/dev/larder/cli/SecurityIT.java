package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.security.TestPki;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar's security flags end to end, with curl as the client and (when installed) a real Prometheus scraping over
 * TLS with a client certificate and a token.
 */
class SecurityIT {

    private static final String DATA_TOKEN = "data-token-0123456789abcdef";
    private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";

    @TempDir
    Path dir;

    private record Result(int status, String body) {
    }

    private static Result curl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20", "-w", "\n%{http_code}"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        int newline = output.lastIndexOf('\n');
        String code = output.substring(newline + 1).strip();
        return new Result(code.matches("\\d{3}") ? Integer.parseInt(code) : -1, output.substring(0, newline));
    }

    @Test
    void anOpenDataPortOnAllInterfacesIsReportedUnlessAcknowledged() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("a"), "--host", "0.0.0.0", "--admin-port",
                Integer.toString(DashboardQueriesIT.freePort()))) {
            String out = larder.output();
            assertTrue(out.contains("SECURITY WARNING: the data port listens on 0.0.0.0"), out);
            assertTrue(out.contains("admin on http://127.0.0.1:"), "the admin port stays on loopback: " + out);
            Result ready = curl(larder.adminUrl() + "/health/ready");
            assertEquals(200, ready.status(), "still ready");
            assertTrue(ready.body().contains("warning: the data port listens on 0.0.0.0"), ready.body());
            assertTrue(curl(larder.adminUrl() + "/metrics").body().contains("larder_security_exposed 1.0"));
            assertEquals(404, curl(larder.adminUrl() + "/debug/profile?event=cpu&seconds=1").status(),
                    "profiling is off unless --profiling");
        }
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("b"), "--host", "0.0.0.0", "--admin-port",
                Integer.toString(DashboardQueriesIT.freePort()), "--insecure-bind-ok")) {
            assertFalse(larder.output().contains("SECURITY WARNING"), larder.output());
            assertEquals("ready", curl(larder.adminUrl() + "/health/ready").body().strip());
            assertTrue(curl(larder.adminUrl() + "/metrics").body().contains("larder_security_exposed 0.0"));
        }
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("c"), "--admin-port",
                Integer.toString(DashboardQueriesIT.freePort()))) {
            assertFalse(larder.output().contains("SECURITY WARNING"), "loopback is not exposed: " + larder.output());
        }
    }

    @Test
    void tlsTokensAndProfilingThroughTheJarWithSighupReload() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"), "larder");
        TestPki.Issued server = pki.server("server");
        Path dataTokens = Files.writeString(dir.resolve("data-tokens"), DATA_TOKEN + "\n");
        Path adminTokens = Files.writeString(dir.resolve("admin-tokens"), ADMIN_TOKEN + "\n");
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--host", "0.0.0.0",
                "--admin-port", Integer.toString(DashboardQueriesIT.freePort()),
                "--tls-cert", server.cert().toString(), "--tls-key", server.key().toString(),
                "--auth-token-file", dataTokens.toString(), "--admin-token-file", adminTokens.toString(),
                "--profiling", "--reload-interval", "1h")) {
            String out = larder.output();
            assertTrue(out.contains("listening on https://"), out);
            assertTrue(out.contains("tls=openssl"), out);
            assertFalse(out.contains("SECURITY WARNING"), "a token is asked for: " + out);
            String ca = pki.caFile().toString();
            String data = "https://127.0.0.1:" + larder.port();
            String admin = "https://127.0.0.1:" + larder.adminPort();

            assertEquals(401, curl("--cacert", ca, "-X", "PUT", "--data", "v", data + "/v0/entity?id=k").status());
            assertEquals(201, curl("--cacert", ca, "-X", "PUT", "--data", "v", "-H",
                    "Authorization: Bearer " + DATA_TOKEN, data + "/v0/entity?id=k").status());
            assertEquals(200, curl("--cacert", ca, data + "/v0/status").status());

            assertEquals(401, curl("--cacert", ca, admin + "/metrics").status());
            assertEquals(401, curl("--cacert", ca, "-H", "Authorization: Bearer " + DATA_TOKEN, admin + "/metrics")
                    .status(), "the data token does not open the admin port");
            assertEquals(200, curl("--cacert", ca, "-H", "Authorization: Bearer " + ADMIN_TOKEN, admin + "/metrics")
                    .status());
            assertEquals(200, curl("--cacert", ca, admin + "/health/ready").status(), "probes stay open");
            assertEquals(401, curl("--cacert", ca, admin + "/debug/profile?event=cpu&seconds=1").status());
            Result profile = curl("--cacert", ca, "-H", "Authorization: Bearer " + ADMIN_TOKEN,
                    admin + "/debug/profile?event=wall&seconds=1");
            assertTrue(profile.status() == 200 || profile.status() == 501, profile.status() + " " + profile.body());
            assertFalse(larder.output().contains(DATA_TOKEN) || larder.output().contains(ADMIN_TOKEN),
                    "no token in the log");
            assertTrue(larder.output().contains("401 no bearer token: PUT /v0/entity from"), larder.output());

            // SIGHUP (the poll is an hour away): a new certificate from a new CA reaches new connections.
            TestPki next = TestPki.create(dir.resolve("next"), "next");
            TestPki.Issued rotated = next.server("server2");
            Files.move(rotated.key(), server.key(), StandardCopyOption.REPLACE_EXISTING);
            Files.move(rotated.cert(), server.cert(), StandardCopyOption.REPLACE_EXISTING);
            assertNotEquals(200, curl("--cacert", next.caFile().toString(), data + "/v0/status").status(),
                    "not reloaded before the signal");
            Process hup = new ProcessBuilder("kill", "-HUP", Long.toString(larder.pid())).start();
            assertEquals(0, hup.waitFor());
            // Generous: on a loaded 2-core CI machine the signal, the reload and a TLS handshake can each be slow.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int status = -1;
            while (System.nanoTime() < deadline && status != 200) {
                status = curl("--cacert", next.caFile().toString(), data + "/v0/status").status();
                Thread.sleep(200);
            }
            assertEquals(200, status, larder.output());
            assertTrue(larder.alive(), "SIGHUP does not stop the server");
            assertTrue(larder.output().contains("reload requested"), larder.output());
        }
    }

    @Test
    void benchLoadsAnHttpsServerWithTheBearerHeader() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"), "larder");
        TestPki.Issued server = pki.server("server");
        Path dataTokens = Files.writeString(dir.resolve("data-tokens"), DATA_TOKEN + "\n");
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--tls-cert", server.cert().toString(),
                "--tls-key", server.key().toString(), "--auth-token-file", dataTokens.toString())) {
            String url = "https://127.0.0.1:" + larder.port();
            Path json = dir.resolve("tls.json");
            LarderProcess bench = LarderProcess.run("bench", "-R", "200", "-c", "4", "-d", "2s", "--warmup", "1s",
                    "--prefill", "--keys", "200", "-w", "get", "-H", "Authorization: Bearer " + DATA_TOKEN,
                    "--json", json.toString(), url);
            assertEquals(0, bench.awaitExit(Duration.ofSeconds(90)), bench.output());
            assertTrue(bench.output().contains("prefill: PUT k1..k200: 200 answers"), bench.output());
            String summary = Files.readString(json);
            assertTrue(summary.contains("\"200\": "), summary);
            assertFalse(summary.contains("\"401\": "), summary);

            // The same run without the header: every answer is a 401, and bench says so.
            Path refused = dir.resolve("refused.json");
            LarderProcess anonymous = LarderProcess.run("bench", "-R", "100", "-c", "2", "-d", "1s", "--warmup", "0s",
                    "-w", "get", "--json", refused.toString(), url);
            anonymous.awaitExit(Duration.ofSeconds(90));
            String refusedSummary = Files.readString(refused);
            assertTrue(refusedSummary.contains("\"401\": "), refusedSummary);
            assertFalse(refusedSummary.contains("\"200\": "), refusedSummary);
        }
    }

    @Test
    void prometheusScrapesOverMutualTlsWithTheAdminToken() throws Exception {
        Optional<Path> binary = PrometheusProcess.binary();
        if (binary.isEmpty()) {
            String why = "prometheus is not installed (Debian package 'prometheus'; .ci/run installs it)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new AssertionError(why + ": required on CI");
            }
            Assumptions.abort(why);
        }
        TestPki pki = TestPki.create(dir.resolve("pki"), "larder");
        TestPki.Issued server = pki.server("server");
        TestPki.Issued scraper = pki.client("prometheus");
        Path adminTokens = Files.writeString(dir.resolve("admin-tokens"), ADMIN_TOKEN + "\n");
        Path credentials = Files.writeString(dir.resolve("credentials"), ADMIN_TOKEN);
        Path wrong = Files.writeString(dir.resolve("wrong"), "not-the-admin-token-at-all");
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"),
                "--admin-port", Integer.toString(DashboardQueriesIT.freePort()),
                "--tls-cert", server.cert().toString(), "--tls-key", server.key().toString(),
                "--tls-client-ca", pki.caFile().toString(), "--admin-token-file", adminTokens.toString())) {
            String target = "127.0.0.1:" + larder.adminPort();
            List<String> scrape = new ArrayList<>();
            scrape.addAll(job("larder", target, scraper, credentials, pki.caFile()));
            scrape.addAll(job("wrong-token", target, scraper, wrong, pki.caFile()));
            scrape.addAll(job("no-client-cert", target, null, credentials, pki.caFile()));
            try (PrometheusProcess prometheus = PrometheusProcess.start(binary.get(), dir, scrape)) {
                awaitUp(prometheus, "larder", 1.0);
                awaitUp(prometheus, "wrong-token", 0.0);
                awaitUp(prometheus, "no-client-cert", 0.0);
                List<PrometheusProcess.Sample> exposed = prometheus.query("larder_security_exposed{job=\"larder\"}");
                assertEquals(1, exposed.size(), exposed.toString());
                assertEquals(0.0, exposed.get(0).value());
            }
        }
    }

    private static List<String> job(String name, String target, TestPki.Issued client, Path credentials, Path ca) {
        List<String> lines = new ArrayList<>(List.of(
                "  - job_name: " + name,
                "    scheme: https",
                "    metrics_path: /metrics",
                "    authorization:",
                "      credentials_file: " + credentials,
                "    tls_config:",
                "      ca_file: " + ca));
        if (client != null) {
            lines.add("      cert_file: " + client.cert());
            lines.add("      key_file: " + client.key());
        }
        lines.add("    static_configs:");
        lines.add("      - targets: ['" + target + "']");
        return lines;
    }

    private static void awaitUp(PrometheusProcess prometheus, String job, double expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<PrometheusProcess.Sample> samples = List.of();
        while (System.nanoTime() < deadline) {
            samples = prometheus.query("up{job=\"" + job + "\"}");
            if (samples.size() == 1 && samples.get(0).value() == expected) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("up{job=" + job + "} never " + expected + ": " + samples + "\n" + prometheus.output());
    }
}
