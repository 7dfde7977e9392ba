package dev.larder.cli;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Prometheus server for end-to-end tests: the Debian package's binary, started on a free loopback port with a
 * generated config that scrapes one target every second, and its TSDB in a temporary directory.
 */
final class PrometheusProcess implements AutoCloseable {

    /** One sample of an instant-query answer. */
    record Sample(Map<String, String> labels, double value) {
    }

    private static final Pattern RESULT =
            Pattern.compile("\\{\"metric\":\\{([^}]*)\\},\"value\":\\[[^,]+,\"([^\"]+)\"\\]\\}");
    private static final Pattern LABEL = Pattern.compile("\"([^\"]+)\":\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final Process process;
    private final Path log;
    private final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PrometheusProcess(Process process, Path log, String baseUrl) {
        this.process = process;
        this.log = log;
        this.baseUrl = baseUrl;
    }

    /** The prometheus binary on PATH or where the Debian package puts it. */
    static Optional<Path> binary() {
        List<Path> candidates = new ArrayList<>();
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty()) {
                candidates.add(Path.of(dir, "prometheus"));
            }
        }
        candidates.add(Path.of("/usr/bin/prometheus"));
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    /** Starts Prometheus scraping {@code http://target/metrics} as job {@code job} every second. */
    static PrometheusProcess start(Path binary, Path workDir, String job, String target)
            throws IOException, InterruptedException {
        return start(binary, workDir, List.of(
                "  - job_name: " + job,
                "    metrics_path: /metrics",
                "    static_configs:",
                "      - targets: ['" + target + "']"));
    }

    /** Starts Prometheus with {@code scrapeConfigs} (YAML lines of list items) under {@code scrape_configs:}. */
    static PrometheusProcess start(Path binary, Path workDir, List<String> scrapeConfigs)
            throws IOException, InterruptedException {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path config = workDir.resolve("prometheus.yml");
        Files.writeString(config, String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  scrape_timeout: 1s",
                "  evaluation_interval: 1s",
                "scrape_configs:",
                String.join("\n", scrapeConfigs),
                ""));
        Path log = workDir.resolve("prometheus.log");
        Process process = new ProcessBuilder(binary.toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + workDir.resolve("tsdb"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PrometheusProcess prometheus = new PrometheusProcess(process, log, "http://127.0.0.1:" + port);
        prometheus.awaitReady(Duration.ofSeconds(60));
        return prometheus;
    }

    private void awaitReady(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/-/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        close();
        throw new IOException("prometheus did not become ready; output:\n" + output());
    }

    /** Runs an instant query; fails on any error Prometheus reports. */
    List<Sample> query(String promql) throws IOException, InterruptedException {
        String body = queryRaw(promql);
        if (!body.startsWith("{\"status\":\"success\"")) {
            throw new IOException("query failed: " + promql + " -> " + body);
        }
        List<Sample> samples = new ArrayList<>();
        Matcher m = RESULT.matcher(body);
        while (m.find()) {
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher lm = LABEL.matcher(m.group(1));
            while (lm.find()) {
                labels.put(lm.group(1), lm.group(2));
            }
            samples.add(new Sample(labels, Double.parseDouble(m.group(2))));
        }
        return samples;
    }

    /** The raw JSON answer of an instant query. */
    String queryRaw(String promql) throws IOException, InterruptedException {
        URI uri = URI.create(baseUrl + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
