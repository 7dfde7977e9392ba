package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end with a real Prometheus: the jar serves PUT/GET/404 traffic and an overload burst, Prometheus scrapes
 * its admin port every second, and what Prometheus then answers must match what the client saw, request for
 * request. On CI (CI=true) a missing prometheus binary is a failure, not a skip.
 */
class PrometheusScrapeIT {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final Map<String, Integer> sentByStatus = new TreeMap<>();

    @Test
    void prometheusSeesExactlyTheTrafficThatWasSent() throws Exception {
        Optional<Path> binary = PrometheusProcess.binary();
        if (binary.isEmpty()) {
            String why = "prometheus is not installed (Debian package 'prometheus'; .ci/run installs it)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new AssertionError(why + ": required on CI");
            }
            System.out.println("PrometheusScrapeIT skipped: " + why);
            Assumptions.abort(why);
        }
        int adminPort = DashboardQueriesIT.freePort();
        // One worker with a 16-slot queue and fsync per write: a burst of concurrent PUTs must overflow it.
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--admin-port",
                Integer.toString(adminPort), "--workers", "1", "--queue-size", "16", "--io-threads", "1", "--sync");
             PrometheusProcess prometheus = PrometheusProcess.start(binary.get(), dir, "larder",
                     "127.0.0.1:" + larder.adminPort())) {
            awaitValue(prometheus, "up{job=\"larder\"}", 1.0);
            double keysBefore = single(prometheus, "larder_rocksdb_keys_estimate{job=\"larder\"}");

            for (int i = 0; i < 60; i++) {
                count(send(larder, "PUT", "/v0/entity?id=key" + i, "value-" + i));
            }
            for (int i = 0; i < 40; i++) {
                count(send(larder, "GET", "/v0/entity?id=key" + i, null));
            }
            for (int i = 0; i < 25; i++) {
                count(send(larder, "GET", "/v0/entity?id=absent" + i, null));
            }
            assertEquals(Map.of("200", 40, "201", 60, "404", 25), sentByStatus);
            overload(larder);
            assertTrue(sentByStatus.getOrDefault("503", 0) > 0, "the burst was refused in part: " + sentByStatus);

            // Prometheus must come to the same counts, status by status.
            Map<String, Integer> seen = awaitCounts(prometheus,
                    "sum by (status) (http_server_requests_seconds_count{job=\"larder\",uri=\"/v0/entity\"})");
            assertEquals(sentByStatus, seen, "requests by status as Prometheus scraped them");
            assertEquals(sentByStatus.get("503"), (int) single(prometheus,
                    "sum(larder_rejections_total{job=\"larder\",mode=\"abort\",reason=\"queue_full\"})"),
                    "every 503 was a queue-full rejection");
            assertTrue(single(prometheus,
                    "sum(increase(larder_rejections_total{job=\"larder\",reason=\"queue_full\"}[5m]))") > 0,
                    "rejection counter rose");
            double keysAfter = awaitAbove(prometheus, "larder_rocksdb_keys_estimate{job=\"larder\"}", keysBefore);
            assertTrue(keysAfter >= keysBefore + 60, "key estimate grew from " + keysBefore + " to " + keysAfter);
            assertTrue(single(prometheus, "sum(larder_storage_calls_seconds_count{job=\"larder\",operation=\"put\"})")
                    >= 60);

            // Every dashboard query runs in this Prometheus without error.
            for (String expr : DashboardQueries.expressions()) {
                prometheus.query(DashboardQueries.forPrometheus(expr));
            }
        }
    }

    /** Bursts of concurrent 64 KiB PUTs until some are refused (at most 5 bursts). */
    private void overload(LarderProcess larder) throws Exception {
        String value = "x".repeat(64 * 1024);
        for (int burst = 0; burst < 5 && sentByStatus.getOrDefault("503", 0) == 0; burst++) {
            List<CompletableFuture<HttpResponse<Void>>> inFlight = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(larder.baseUrl() + "/v0/entity?id=burst"
                                + burst + "-" + i)).timeout(Duration.ofSeconds(60))
                        .PUT(HttpRequest.BodyPublishers.ofString(value)).build();
                inFlight.add(http.sendAsync(request, HttpResponse.BodyHandlers.discarding()));
            }
            for (CompletableFuture<HttpResponse<Void>> response : inFlight) {
                count(response.get().statusCode());
            }
        }
    }

    private int send(LarderProcess larder, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(larder.baseUrl() + pathAndQuery))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private void count(int status) {
        sentByStatus.merge(Integer.toString(status), 1, Integer::sum);
    }

    private static double single(PrometheusProcess prometheus, String promql) throws Exception {
        List<PrometheusProcess.Sample> samples = prometheus.query(promql);
        assertEquals(1, samples.size(), promql + " -> " + samples);
        return samples.get(0).value();
    }

    private static void awaitValue(PrometheusProcess prometheus, String promql, double expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<PrometheusProcess.Sample> samples = List.of();
        while (System.nanoTime() < deadline) {
            samples = prometheus.query(promql);
            if (samples.size() == 1 && samples.get(0).value() == expected) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError(promql + " never became " + expected + ": " + samples + "\n" + prometheus.output());
    }

    private static double awaitAbove(PrometheusProcess prometheus, String promql, double floor) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        double value = floor;
        while (System.nanoTime() < deadline) {
            value = single(prometheus, promql);
            if (value > floor) {
                return value;
            }
            Thread.sleep(250);
        }
        return value;
    }

    /** Polls until two consecutive answers agree (a scrape after the last request), then returns that answer. */
    private Map<String, Integer> awaitCounts(PrometheusProcess prometheus, String promql) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Map<String, Integer> seen = Map.of();
        while (System.nanoTime() < deadline) {
            seen = new TreeMap<>();
            for (PrometheusProcess.Sample sample : prometheus.query(promql)) {
                seen.put(sample.labels().get("status"), (int) sample.value());
            }
            if (seen.equals(sentByStatus)) {
                return seen;
            }
            Thread.sleep(250);
        }
        return seen;
    }
}
