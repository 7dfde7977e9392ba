package dev.larder.cli.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cli.LarderProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compose `cluster` profile without containers: three {@code larder serve} processes and Debian's nginx on
 * loopback, running the nginx template from deploy/nginx/templates/ with the environment docker-compose.yml gives
 * it (each node's address swapped for its loopback stand-in).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClusterIT {

    private static final int KEYS = 10_000;
    /** Requests in flight through nginx: enough to keep three nodes busy on two cores, few enough to stay polite. */
    private static final int IN_FLIGHT = 32;

    @TempDir
    Path dir;

    private final ExecutorService httpThreads = Executors.newFixedThreadPool(4);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).executor(httpThreads).build();
    private final List<AutoCloseable> running = new ArrayList<>();

    @AfterEach
    void stopEverything() throws Exception {
        for (AutoCloseable process : running) {
            process.close();
        }
        httpThreads.shutdownNow();
    }

    @Test
    void consistentHashingSpreadsKeysAndADeadNodeFailsOnlyItsOwnKeys() throws Exception {
        Path nginx = Tools.require("nginx", "nginx-light", "/usr/sbin", "/usr/local/sbin");
        Compose compose = Compose.load();
        List<String> services = compose.larderServices().stream()
                .filter(s -> compose.profiles(s).contains("cluster")).toList();
        assertEquals(3, services.size(), services.toString());

        // The cluster's nodes, each in its own data directory, as compose runs them (one volume each).
        Map<String, LarderProcess> nodes = new TreeMap<>();
        Map<String, Path> dataDirs = new HashMap<>();
        for (String service : services) {
            dataDirs.put(service, dir.resolve(service));
            nodes.put(service, startNode(dataDirs.get(service), 0));
        }

        // nginx's compose environment, with the shard addresses and the listen address made loopback.
        Map<String, String> env = new HashMap<>(compose.environment("nginx"));
        int proxyPort = freePort();
        env.replaceAll((name, value) -> {
            for (String service : services) {
                if (value.equals(service + ":" + compose.environment(service).get("LARDER_PORT"))) {
                    return "127.0.0.1:" + nodes.get(service).port();
                }
            }
            return value;
        });
        env.put("LARDER_PROXY_LISTEN", "127.0.0.1:" + proxyPort);
        String conf = NginxCluster.render(Repo.text(NginxCluster.TEMPLATE), env, env.get("NGINX_ENVSUBST_FILTER"));
        for (String service : services) {
            assertTrue(conf.contains("server 127.0.0.1:" + nodes.get(service).port() + " max_fails=0;"), conf);
        }
        NginxCluster proxy = NginxCluster.start(nginx, dir.resolve("nginx"), conf, proxyPort);
        running.add(proxy);
        String via = proxy.baseUrl();

        // Write 10 000 keys through nginx.
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            keys.add(String.format("k%05d", i));
        }
        Map<String, Result> puts = forEach(keys, key -> HttpRequest.newBuilder(entity(via, key))
                .PUT(HttpRequest.BodyPublishers.ofString(value(key, 1))).build());
        puts.forEach((key, r) -> assertEquals(201, r.status, () -> "PUT " + key + ": " + r + "\n" + proxy.output()));

        // Each node, asked directly, holds a fair share, and together exactly the keys written, each once.
        Map<String, Set<String>> owned = ownership(nodes);
        Set<String> union = new TreeSet<>();
        owned.forEach((service, held) -> {
            double share = held.size() / (double) KEYS;
            assertTrue(share >= 0.20 && share <= 0.50, service + " holds " + held.size() + " of " + KEYS + " keys");
            union.addAll(held);
        });
        assertEquals(KEYS, owned.values().stream().mapToInt(Set::size).sum(), "a key is stored on two nodes");
        assertEquals(new TreeSet<>(keys), union);

        // Every key reads back through nginx.
        expectAll(readAll(via, keys), keys, key -> value(key, 1), proxy);

        // Ranges are refused with a reason; /v0/status may go to any node.
        HttpResponse<String> range = http.send(HttpRequest.newBuilder(URI.create(via + "/v0/entities?start=k"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(501, range.statusCode());
        assertTrue(range.body().contains("range queries need a single node"), range.body());

        // SIGKILL one node: exactly its keys fail, with 502/503, and the others are served as before.
        String victim = services.get(1);
        nodes.get(victim).kill();
        nodes.get(victim).awaitExit(Duration.ofSeconds(30));
        Map<String, Result> whileDown = readAll(via, keys);
        for (String key : keys) {
            Result r = whileDown.get(key);
            if (owned.get(victim).contains(key)) {
                assertTrue(r.status == 502 || r.status == 503, () -> "GET " + key + " (on the dead node): " + r);
            } else {
                assertEquals(200, r.status, () -> "GET " + key + " (on a live node): " + r);
                assertEquals(value(key, 1), r.body, key);
            }
        }
        assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(via + "/v0/status")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode(), "status is answered by a live node");
        // A write to a dead node's key fails too, rather than landing on another node.
        String orphan = owned.get(victim).iterator().next();
        Result lost = send(HttpRequest.newBuilder(entity(via, orphan))
                .PUT(HttpRequest.BodyPublishers.ofString(value(orphan, 2))).build()).join();
        assertTrue(lost.status == 502 || lost.status == 503, () -> "PUT " + orphan + " (on the dead node): " + lost);

        // Restart it on the same data directory and port: everything reads back, and nothing moved.
        nodes.put(victim, startNode(dataDirs.get(victim), nodes.get(victim).port()));
        expectAll(readAll(via, keys), keys, key -> value(key, 1), proxy);
        assertEquals(owned, ownership(nodes), "keys moved between nodes while one was down");
    }

    private LarderProcess startNode(Path dataDir, int port) throws IOException, InterruptedException {
        // Small pools: three nodes, nginx and this test share two cores.
        LarderProcess node = LarderProcess.serve(port, dataDir, "--io-threads", "1", "--workers", "2",
                "--block-cache", "16MiB");
        running.add(node);
        return node;
    }

    /** Which keys each node holds, from its own range endpoint. */
    private Map<String, Set<String>> ownership(Map<String, LarderProcess> nodes) throws Exception {
        Map<String, Set<String>> owned = new TreeMap<>();
        for (Map.Entry<String, LarderProcess> node : nodes.entrySet()) {
            HttpResponse<String> range = http.send(HttpRequest.newBuilder(
                    URI.create(node.getValue().baseUrl() + "/v0/entities?start=k&end=l")).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            assertEquals(200, range.statusCode(), node.getKey());
            // The range body is key '\n' value with nothing after the value; our values end in '\n', so the
            // lines alternate key, value.
            String[] lines = range.body().split("\n");
            Set<String> keys = new TreeSet<>();
            for (int i = 0; i + 1 < lines.length; i += 2) {
                assertEquals(value(lines[i], 1), lines[i + 1] + "\n", node.getKey() + " holds " + lines[i]);
                keys.add(lines[i]);
            }
            owned.put(node.getKey(), keys);
        }
        return owned;
    }

    private Map<String, Result> readAll(String base, List<String> keys) throws InterruptedException {
        return forEach(keys, key -> HttpRequest.newBuilder(entity(base, key)).GET().build());
    }

    private static void expectAll(Map<String, Result> results, List<String> keys, Function<String, String> expected,
                                  NginxCluster proxy) {
        for (String key : keys) {
            Result r = results.get(key);
            assertEquals(200, r.status, () -> "GET " + key + ": " + r + "\n" + proxy.output());
            assertEquals(expected.apply(key), r.body, key);
        }
    }

    /** One request per key, at most {@link #IN_FLIGHT} at a time over the client's pooled connections. */
    private Map<String, Result> forEach(List<String> keys, Function<String, HttpRequest> request)
            throws InterruptedException {
        Map<String, Result> results = new ConcurrentHashMap<>();
        Semaphore permits = new Semaphore(IN_FLIGHT);
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (String key : keys) {
            permits.acquire();
            pending.add(send(request.apply(key)).thenAccept(r -> {
                results.put(key, r);
                permits.release();
            }));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        return results;
    }

    private CompletableFuture<Result> send(HttpRequest request) {
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
                .handle((response, error) -> error == null
                        ? new Result(response.statusCode(), response.body())
                        : new Result(-1, String.valueOf(error)));
    }

    private static URI entity(String base, String key) {
        return URI.create(base + "/v0/entity?id=" + key);
    }

    private static String value(String key, int version) {
        return "value " + version + " of " + key + "\n";
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private record Result(int status, String body) {
        @Override
        public String toString() {
            return status + " " + (body.length() > 200 ? body.substring(0, 200) + "..." : body.strip());
        }
    }
}
