package dev.larder.cli.deploy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cli.DashboardQueries;
import dev.larder.cli.LarderProcess;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker-compose.yml brought up for real with {@code docker-compose} (v1, as Debian ships it; v2 reads the same
 * file): Larder and Prometheus, then the {@code cluster} profile with nginx and three shards. Every container uses
 * the host's network, so the file's fixed ports (8080, 9090, ...) could be taken on a shared machine: the test runs
 * the repository's docker-compose.yml and prometheus.yml with each of those port numbers replaced by a free one,
 * and nothing else changed.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ComposeStackContainerIT {

    /** Every port docker-compose.yml and prometheus.yml use. */
    private static final List<Integer> STACK_PORTS =
            List.of(8080, 8081, 8090, 8181, 8182, 8183, 8281, 8282, 8283, 9090, 3000);
    private static final List<String> SHARDS = List.of("larder-1", "larder-2", "larder-3");
    private static final int KEYS = 3_000;

    @TempDir
    Path dir;

    private final String project = "larder-it-" + Long.toHexString(System.nanoTime());
    private final Map<Integer, Integer> portMap = new HashMap<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Path composeFile;
    private final List<String> extraFiles = new ArrayList<>();
    private boolean cluster;

    @BeforeAll
    static void engine() throws Exception {
        Docker.requireEngineAndImages();
        Docker.Result version = Docker.run(Duration.ofSeconds(30), List.of("docker-compose", "version", "--short"),
                Map.of());
        if (version.status() != 0) {
            throw new AssertionError("docker-compose is missing (apt-get install docker-compose): " + version.err());
        }
        System.out.println("ComposeStackContainerIT: docker-compose " + version.text());
    }

    @AfterEach
    void down() throws Exception {
        if (composeFile != null) {
            compose("down", "-v", "--timeout", "20");
        }
    }

    /** The repository's compose and Prometheus files with the stack's ports remapped to free ones. */
    private void prepare() throws IOException {
        int[] free = Docker.freePorts(STACK_PORTS.size());
        for (int i = 0; i < free.length; i++) {
            portMap.put(STACK_PORTS.get(i), free[i]);
        }
        Path prometheusDir = Files.createDirectories(dir.resolve("prometheus"));
        Files.writeString(prometheusDir.resolve("prometheus.yml"), remap(Repo.text("deploy/prometheus/prometheus.yml")));
        String compose = remap(Repo.text(Compose.FILE));
        String mount = "./deploy/prometheus:/etc/prometheus:ro";
        assertTrue(compose.contains(mount), "the Prometheus configuration is mounted from " + mount);
        composeFile = dir.resolve("docker-compose.yml");
        Files.writeString(composeFile, compose.replace(mount, prometheusDir + ":/etc/prometheus:ro"));
    }

    private String remap(String text) {
        for (Map.Entry<Integer, Integer> port : portMap.entrySet()) {
            text = text.replaceAll("(?<![0-9])" + port.getKey() + "(?![0-9])", Integer.toString(port.getValue()));
        }
        return text;
    }

    private int port(int stackPort) {
        return portMap.get(stackPort);
    }

    private Docker.Result compose(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("docker-compose", "--project-directory",
                Repo.root().toString(), "-p", project, "-f", composeFile.toString()));
        for (String extra : extraFiles) {
            command.addAll(List.of("-f", extra));
        }
        if (cluster) {
            command.addAll(List.of("--profile", "cluster"));
        }
        command.addAll(List.of(args));
        // Longer than a Larder container can take to be declared unhealthy (120 s start period, then 5 checks of
        // up to 15 s), so a container that never serves fails with compose's own message rather than this timeout.
        return Docker.run(Duration.ofMinutes(4), command, Map.of());
    }

    /** A compose file on top of the others that adds {@code env} to each of {@code services}' environment. */
    private void overrideEnvironment(String file, List<String> services, Map<String, String> env) throws IOException {
        List<String> lines = new ArrayList<>(List.of("services:"));
        for (String service : services) {
            lines.addAll(List.of("  " + service + ":", "    environment:"));
            env.forEach((name, value) -> lines.add("      " + name + ": \"" + value + "\""));
        }
        lines.add("");
        Path override = dir.resolve(file);
        Files.writeString(override, String.join("\n", lines));
        extraFiles.add(override.toString());
    }

    private String container(String service) throws IOException, InterruptedException {
        String id = compose("ps", "-q", service).ok().text();
        assertTrue(!id.isEmpty(), "no container for " + service);
        return id;
    }

    @Test
    void prometheusScrapesLarderAndEveryDashboardQueryReturnsData() throws Exception {
        prepare();
        // One override on top of the file: a single slow worker with a small queue, so that a burst is refused in
        // part and the dashboard's error-ratio panel has 5xx to show (default settings absorb any burst here).
        overrideEnvironment("overload.yml", List.of("larder"),
                Map.of("LARDER_WORKERS", "1", "LARDER_QUEUE_SIZE", "16", "LARDER_SYNC", "true"));
        long started = System.nanoTime();
        compose("up", "-d", "--no-build").ok();
        String larder = container("larder");
        String prometheus = container("prometheus");
        Docker.awaitHealthy(larder, Duration.ofSeconds(60));
        Docker.awaitHealthy(prometheus, Duration.ofSeconds(90));
        System.out.printf("ComposeStackContainerIT: larder and prometheus healthy %.1f s after up%n",
                (System.nanoTime() - started) / 1e9);
        assertEquals(Docker.LARDER_IMAGE, Docker.inspect(larder, "{{.Config.Image}}"));
        assertEquals(Docker.PROMETHEUS_IMAGE, Docker.inspect(prometheus, "{{.Config.Image}}"));
        assertEquals("host host", Docker.inspect(larder, "{{.HostConfig.NetworkMode}}") + " "
                + Docker.inspect(prometheus, "{{.HostConfig.NetworkMode}}"));

        String base = "http://127.0.0.1:" + port(8080);
        awaitQuery("up{job=\"larder\"} == 1", Duration.ofSeconds(60));
        // Traffic of every kind the dashboard shows, for long enough that rate() over a minute has two scrapes.
        Map<Integer, Integer> sent = new TreeMap<>();
        long trafficUntil = System.nanoTime() + Duration.ofSeconds(35).toNanos();
        for (int round = 0; System.nanoTime() < trafficUntil || !sent.containsKey(503); round++) {
            for (int i = 0; i < 20; i++) {
                count(sent, send(base, "PUT", "/v0/entity?id=k" + round + "-" + i, "value " + i));
                count(sent, send(base, "GET", "/v0/entity?id=k" + round + "-" + i, null));
                count(sent, send(base, "GET", "/v0/entity?id=absent" + i, null));
            }
            count(sent, send(base, "GET", "/v0/entities?start=k&end=l", null));
            if (round % 10 == 0) {
                burst(base, sent);
            }
            Thread.sleep(200);
        }
        System.out.println("ComposeStackContainerIT: sent by status " + sent);
        assertTrue(sent.containsKey(503), "the burst was never refused: " + sent);

        String series = awaitQuery("sum by (status) (http_server_requests_seconds_count{job=\"larder\","
                + "uri=\"/v0/entity\"})", Duration.ofSeconds(60));
        for (String status : List.of("200", "201", "404", "503")) {
            assertTrue(series.contains("\"status\":\"" + status + "\""), "no " + status + " series: " + series);
        }
        // Every expression of the Grafana dashboard returns data from this Prometheus (Grafana's variables filled
        // in as "all jobs, all instances").
        List<String> exprs = DashboardQueries.expressions();
        assertTrue(exprs.size() > 20, "dashboard queries: " + exprs.size());
        List<String> empty = new ArrayList<>(exprs);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!empty.isEmpty() && System.nanoTime() < deadline) {
            // Keep the counters moving while waiting, so rate() has something to show.
            count(sent, send(base, "PUT", "/v0/entity?id=late", "x"));
            List<String> still = new ArrayList<>();
            for (String expr : empty) {
                if (!hasData(query(DashboardQueries.forPrometheus(expr)))) {
                    still.add(expr);
                }
            }
            empty = still;
            if (!empty.isEmpty()) {
                Thread.sleep(2_000);
            }
        }
        assertTrue(empty.isEmpty(), empty.size() + " of " + exprs.size() + " dashboard queries return no data:\n"
                + String.join("\n", empty));
        System.out.printf("ComposeStackContainerIT: all %d dashboard queries return data%n", exprs.size());
    }

    @Test
    void clusterProfileSpreadsKeysOverThreeShardsAndAStoppedShardLosesOnlyItsOwn() throws Exception {
        prepare();
        cluster = true;
        // What this test proves is the routing, not the JIT: three shards each warming up with the default 60,000
        // requests at once on a 2-core CI machine served through nginx 86 s after up, and the stopped shard's restart
        // warms up again. A short warm-up still runs every kind of request before each shard's port opens.
        overrideEnvironment("short-warmup.yml", SHARDS,
                Map.of("LARDER_WARMUP_REQUESTS", Integer.toString(LarderProcess.SHORT_WARMUP_REQUESTS)));
        long started = System.nanoTime();
        compose("up", "-d", "--no-build").ok();
        for (String shard : SHARDS) {
            Docker.awaitHealthy(container(shard), Duration.ofSeconds(60));
        }
        String nginx = container("nginx");
        assertEquals(Docker.NGINX_IMAGE, Docker.inspect(nginx, "{{.Config.Image}}"));
        String via = "http://127.0.0.1:" + port(8090);
        awaitStatus(via + "/v0/status", 200, Duration.ofSeconds(30), nginx);
        System.out.printf("ComposeStackContainerIT: cluster serving through nginx %.1f s after up%n",
                (System.nanoTime() - started) / 1e9);

        List<String> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            keys.add(String.format("k%05d", i));
        }
        BulkHttp bulk = new BulkHttp("127.0.0.1", port(8090));
        List<BulkHttp.Response> puts = bulk.send(keys.stream().map(key -> new BulkHttp.Request("PUT",
                "/v0/entity?id=" + key, value(key).getBytes(UTF_8))).toList());
        for (int i = 0; i < KEYS; i++) {
            assertEquals(201, puts.get(i).status(), "PUT " + keys.get(i) + ": " + puts.get(i));
        }

        Map<String, Set<String>> owned = ownership();
        Map<String, Integer> counts = new TreeMap<>();
        owned.forEach((shard, held) -> counts.put(shard, held.size()));
        System.out.println("ComposeStackContainerIT: keys per shard " + counts);
        Set<String> union = new TreeSet<>();
        for (Map.Entry<String, Set<String>> shard : owned.entrySet()) {
            double share = shard.getValue().size() / (double) KEYS;
            assertTrue(share >= 0.20 && share <= 0.50, shard.getKey() + " holds " + shard.getValue().size());
            union.addAll(shard.getValue());
        }
        assertEquals(KEYS, counts.values().stream().mapToInt(Integer::intValue).sum(), "a key is on two shards");
        assertEquals(new TreeSet<>(keys), union);
        expectAll(bulk, keys, Set.of());
        HttpResponse<String> range = http.send(HttpRequest.newBuilder(URI.create(via + "/v0/entities?start=k"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(501, range.statusCode(), "nginx refuses ranges: " + range.body());

        // Stop one shard the way an operator would: exactly its keys fail, the others are served.
        String victim = "larder-2";
        compose("stop", victim).ok();
        assertEquals("0", Docker.inspect(container(victim), "{{.State.ExitCode}}"), "a clean stop");
        expectAll(bulk, keys, owned.get(victim));
        compose("start", victim).ok();
        Docker.awaitHealthy(container(victim), Duration.ofSeconds(60));
        expectAll(bulk, keys, Set.of());
        assertEquals(owned, ownership(), "keys moved between shards while one was stopped");
        System.out.printf("ComposeStackContainerIT: with %s stopped only its %d keys failed; all back after start%n",
                victim, owned.get(victim).size());
    }

    /** Reads every key through nginx: 200 with its value, or 502/503/504 for exactly the keys in {@code down}. */
    private void expectAll(BulkHttp bulk, List<String> keys, Set<String> down) throws Exception {
        List<BulkHttp.Response> gets = bulk.send(keys.stream()
                .map(key -> new BulkHttp.Request("GET", "/v0/entity?id=" + key, null)).toList());
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            BulkHttp.Response r = gets.get(i);
            boolean ok = down.contains(key) ? r.status() == 502 || r.status() == 503 || r.status() == 504
                    : r.status() == 200 && r.body().equals(value(key));
            if (!ok) {
                wrong.add(key + (down.contains(key) ? " (on the stopped shard): " : ": ") + r);
            }
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " wrong answers, first: "
                + wrong.subList(0, Math.min(10, wrong.size())));
    }

    /** Which keys each shard holds, from its own range endpoint (each shard's data port, remapped). */
    private Map<String, Set<String>> ownership() throws Exception {
        Map<String, Set<String>> owned = new TreeMap<>();
        for (int i = 0; i < SHARDS.size(); i++) {
            HttpResponse<String> range = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + port(8181 + i) + "/v0/entities?start=k&end=l")).build(), HttpResponse.BodyHandlers.ofString(UTF_8));
            assertEquals(200, range.statusCode(), SHARDS.get(i));
            String[] lines = range.body().split("\n");
            Set<String> keys = new TreeSet<>();
            for (int l = 0; l + 1 < lines.length; l += 2) {
                assertEquals(value(lines[l]), lines[l + 1] + "\n", SHARDS.get(i) + " holds " + lines[l]);
                keys.add(lines[l]);
            }
            owned.put(SHARDS.get(i), keys);
        }
        return owned;
    }

    private static String value(String key) {
        return "value of " + key + "\n";
    }

    private void awaitStatus(String url, int status, Duration timeout, String container) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == status) {
                    return;
                }
                last = r.statusCode() + " " + r.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(250);
        }
        throw new AssertionError(url + " never answered " + status + " (" + last + "); logs:\n" + Docker.logs(container));
    }

    /** 150 concurrent 64 KiB PUTs: with one slow worker and 16 queue slots, some are refused with 503. */
    private void burst(String base, Map<Integer, Integer> sent) throws Exception {
        String value = "x".repeat(64 * 1024);
        List<CompletableFuture<HttpResponse<Void>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            inFlight.add(http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=burst-" + i))
                    .timeout(Duration.ofSeconds(60)).PUT(HttpRequest.BodyPublishers.ofString(value)).build(),
                    HttpResponse.BodyHandlers.discarding()));
        }
        for (CompletableFuture<HttpResponse<Void>> response : inFlight) {
            count(sent, response.get().statusCode());
        }
    }

    private int send(String base, String method, String pathAndQuery, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static void count(Map<Integer, Integer> sent, int status) {
        sent.merge(status, 1, Integer::sum);
    }

    /** An instant query against the stack's Prometheus; fails on any error it reports. */
    private String query(String promql) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + port(9090) + "/api/v1/query?query="
                + URLEncoder.encode(promql, UTF_8));
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(r.body().startsWith("{\"status\":\"success\""), promql + " -> " + r.body());
        return r.body();
    }

    private static boolean hasData(String answer) {
        return answer.contains("\"result\":[{");
    }

    private String awaitQuery(String promql, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String answer = "";
        while (System.nanoTime() < deadline) {
            answer = query(promql);
            if (hasData(answer)) {
                return answer;
            }
            Thread.sleep(1_000);
        }
        throw new AssertionError(promql + " returned no data within " + timeout + ": " + answer);
    }
}
