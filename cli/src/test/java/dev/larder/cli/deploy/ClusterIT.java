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

    @TempDir
    Path dir;

    /** For the few single requests; the 10 000-key passes go through {@link BulkHttp}. */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<AutoCloseable> running = new ArrayList<>();

    @AfterEach
    void stopEverything() throws Exception {
        for (AutoCloseable process : running) {
            process.close();
        }
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
                if (value.equals("127.0.0.1:" + compose.environment(service).get("LARDER_PORT"))) {
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
        BulkHttp bulk = new BulkHttp("127.0.0.1", proxyPort);

        // Write 10 000 keys through nginx.
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            keys.add(String.format("k%05d", i));
        }
        Map<String, BulkHttp.Response> puts = forEach(bulk, keys, key -> new BulkHttp.Request("PUT", entity(key),
                value(key, 1).getBytes(StandardCharsets.UTF_8)));
        puts.forEach((key, r) -> assertEquals(201, r.status(), () -> "PUT " + key + ": " + r + "\n" + proxy.output()));

        // Each node, asked directly, holds a fair share, and together exactly the keys written, each once.
        Map<String, Set<String>> owned = ownership(nodes);
        Map<String, Integer> counts = new TreeMap<>();
        owned.forEach((service, held) -> counts.put(service, held.size()));
        System.out.println("ClusterIT: keys per node " + counts);
        Set<String> union = new TreeSet<>();
        owned.forEach((service, held) -> {
            double share = held.size() / (double) KEYS;
            assertTrue(share >= 0.20 && share <= 0.50, service + " holds " + held.size() + " of " + KEYS + " keys");
            union.addAll(held);
        });
        assertEquals(KEYS, owned.values().stream().mapToInt(Set::size).sum(), "a key is stored on two nodes");
        assertEquals(new TreeSet<>(keys), union);

        // Every key reads back through nginx.
        expectAll(readAll(bulk, keys), keys, key -> value(key, 1), proxy);

        // Ranges are refused with a reason; /v0/status may go to any node.
        HttpResponse<String> range = http.send(HttpRequest.newBuilder(URI.create(via + "/v0/entities?start=k"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(501, range.statusCode());
        assertTrue(range.body().contains("range queries need a single node"), range.body());

        // SIGKILL one node: exactly its keys fail, with 502/503, and the others are served as before.
        String victim = services.get(1);
        nodes.get(victim).kill();
        nodes.get(victim).awaitExit(Duration.ofSeconds(30));
        Map<String, BulkHttp.Response> whileDown = readAll(bulk, keys);
        for (String key : keys) {
            BulkHttp.Response r = whileDown.get(key);
            if (owned.get(victim).contains(key)) {
                assertTrue(r.status() == 502 || r.status() == 503, () -> "GET " + key + " (on the dead node): " + r);
            } else {
                assertEquals(200, r.status(), () -> "GET " + key + " (on a live node): " + r);
                assertEquals(value(key, 1), r.body(), key);
            }
        }
        assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(via + "/v0/status")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode(), "status is answered by a live node");
        // A write to a dead node's key fails too, rather than landing on another node.
        String orphan = owned.get(victim).iterator().next();
        HttpResponse<String> lost = http.send(HttpRequest.newBuilder(URI.create(via + entity(orphan)))
                .PUT(HttpRequest.BodyPublishers.ofString(value(orphan, 2))).build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(lost.statusCode() == 502 || lost.statusCode() == 503,
                () -> "PUT " + orphan + " (on the dead node): " + lost.statusCode() + " " + lost.body());

        // Restart it on the same data directory and port: everything reads back, and nothing moved.
        nodes.put(victim, startNode(dataDirs.get(victim), nodes.get(victim).port()));
        expectAll(readAll(bulk, keys), keys, key -> value(key, 1), proxy);
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

    private static Map<String, BulkHttp.Response> readAll(BulkHttp bulk, List<String> keys)
            throws InterruptedException {
        return forEach(bulk, keys, key -> new BulkHttp.Request("GET", entity(key), null));
    }

    private static void expectAll(Map<String, BulkHttp.Response> results, List<String> keys,
                                  Function<String, String> expected, NginxCluster proxy) {
        for (String key : keys) {
            BulkHttp.Response r = results.get(key);
            assertEquals(200, r.status(), () -> "GET " + key + ": " + r + "\n" + proxy.output());
            assertEquals(expected.apply(key), r.body(), key);
        }
    }

    /** One request per key, through the bulk client; the answers by key. */
    private static Map<String, BulkHttp.Response> forEach(BulkHttp bulk, List<String> keys,
                                                          Function<String, BulkHttp.Request> request)
            throws InterruptedException {
        List<BulkHttp.Response> responses = bulk.send(keys.stream().map(request).toList());
        Map<String, BulkHttp.Response> byKey = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            byKey.put(keys.get(i), responses.get(i));
        }
        return byKey;
    }

    private static String entity(String key) {
        return "/v0/entity?id=" + key;
    }

    private static String value(String key, int version) {
        return "value " + version + " of " + key + "\n";
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
