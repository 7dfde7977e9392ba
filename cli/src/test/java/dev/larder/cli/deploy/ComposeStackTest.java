package dev.larder.cli.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The pieces of the compose stack agree with each other and with the image: what Prometheus scrapes, what Grafana
 * reads, what nginx routes to, and how each Larder container is run. Every service shares the host's network, so
 * each must listen on loopback and on ports of its own. (ComposeStackContainerIT brings the stack up for real.)
 */
class ComposeStackTest {

    private static final List<String> CLUSTER_NODES = List.of("larder-1", "larder-2", "larder-3");
    private static final Pattern TEMPLATE_VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    private final Compose compose = Compose.load();
    private final Map<String, String> imageEnv =
            Dockerfile.env(Dockerfile.parse(Repo.text("Dockerfile")).finalStage());

    /** A LARDER_* setting as a container sees it: the service's environment over the image's ENV. */
    private String larderSetting(String service, String name) {
        String value = compose.environment(service).getOrDefault(name, imageEnv.get(name));
        assertNotNull(value, service + ": " + name + " is set neither in " + Compose.FILE + " nor in the Dockerfile");
        return value;
    }

    @Test
    void larderServicesAreTheSingleNodeAndTheThreeShards() {
        List<String> expected = new ArrayList<>(List.of("larder"));
        expected.addAll(CLUSTER_NODES);
        assertEquals(expected, compose.larderServices());
        assertEquals(List.of(), compose.profiles("larder"), "the single node runs without a profile");
        assertEquals(List.of(), compose.profiles("prometheus"));
        assertEquals(List.of("grafana"), compose.profiles("grafana"), "Grafana (not in Debian) only on request");
        for (String node : CLUSTER_NODES) {
            assertEquals(List.of("cluster"), compose.profiles(node), node);
        }
        assertEquals(List.of("cluster"), compose.profiles("nginx"));
    }

    @Test
    void imagesBuildFromTheRepository() {
        for (String service : compose.larderServices()) {
            assertEquals(".", compose.service(service).get("build"), service);
        }
        assertEquals("deploy/prometheus", compose.service("prometheus").get("build"));
        assertEquals(Docker.PROMETHEUS_IMAGE, compose.service("prometheus").get("image"));
        assertEquals("deploy/nginx", compose.service("nginx").get("build"));
        assertEquals(Docker.NGINX_IMAGE, compose.service("nginx").get("image"));
        assertEquals(Docker.LARDER_IMAGE, Compose.LARDER_IMAGE);
        assertFalse(compose.root().containsKey("name"), "docker-compose v1 (Debian's) refuses a top-level name");
    }

    @Test
    void everyServiceUsesTheHostNetworkOnLoopbackWithPortsOfItsOwn() {
        Map<String, List<Integer>> listening = new TreeMap<>();
        for (String service : compose.services().keySet()) {
            assertEquals("host", compose.service(service).get("network_mode"), service);
            assertFalse(compose.service(service).containsKey("ports"), service + ": host networking publishes nothing");
            assertFalse(compose.service(service).containsKey("networks"), service);
        }
        for (String service : compose.larderServices()) {
            assertEquals("127.0.0.1", larderSetting(service, "LARDER_HOST"), service);
            listening.put(service, List.of(Integer.parseInt(larderSetting(service, "LARDER_PORT")),
                    Integer.parseInt(larderSetting(service, "LARDER_ADMIN_PORT"))));
        }
        listening.put("prometheus", List.of(prometheusPort()));
        String proxy = compose.environment("nginx").get("LARDER_PROXY_LISTEN");
        assertTrue(proxy.startsWith("127.0.0.1:"), proxy);
        listening.put("nginx", List.of(Integer.parseInt(proxy.substring(proxy.indexOf(':') + 1))));
        Map<String, String> grafana = compose.environment("grafana");
        assertEquals("127.0.0.1", grafana.get("GF_SERVER_HTTP_ADDR"));
        listening.put("grafana", List.of(Integer.parseInt(grafana.get("GF_SERVER_HTTP_PORT"))));
        List<Integer> all = listening.values().stream().flatMap(List::stream).toList();
        assertEquals(all.size(), new TreeSet<>(all).size(), "two services would listen on one port: " + listening);
        assertEquals(List.of(8080, 8081), listening.get("larder"), "the single node keeps the default ports");
        // The data ports the README and the nginx template's 501 message name.
        for (int i = 0; i < CLUSTER_NODES.size(); i++) {
            assertEquals(8181 + i, listening.get(CLUSTER_NODES.get(i)).get(0), CLUSTER_NODES.get(i));
        }
    }

    @Test
    void everyLarderContainerKeepsItsOwnData() {
        Set<String> volumesSeen = new HashSet<>();
        for (String service : compose.larderServices()) {
            String dataDir = larderSetting(service, "LARDER_DATA_DIR");
            List<String[]> dataMounts = compose.volumes(service).stream()
                    .filter(v -> v.length >= 2 && v[1].equals(dataDir)).toList();
            assertEquals(1, dataMounts.size(), service + ": exactly one volume must be mounted at " + dataDir);
            String volume = dataMounts.get(0)[0];
            assertTrue(compose.root().containsKey("volumes")
                    && Compose.map(compose.root(), "volumes").containsKey(volume),
                    service + ": " + volume + " must be a named volume (data outlives the container)");
            assertTrue(volumesSeen.add(volume), service + " shares its data volume " + volume
                    + " with another node: RocksDB allows one process per directory");
        }
    }

    private int prometheusPort() {
        String listen = Compose.strings(compose.service("prometheus").get("command")).stream()
                .filter(a -> a.startsWith("--web.listen-address=")).findFirst()
                .orElseThrow(() -> new AssertionError("prometheus: no --web.listen-address (its default is all interfaces)"));
        assertTrue(listen.startsWith("--web.listen-address=127.0.0.1:"), listen);
        return Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
    }

    @Test
    void stopGracePeriodOutlastsTheShutdownTimeout() {
        for (String service : compose.larderServices()) {
            Duration shutdown = Compose.duration(larderSetting(service, "LARDER_SHUTDOWN_TIMEOUT"));
            Object grace = compose.service(service).get("stop_grace_period");
            assertNotNull(grace, service + " needs stop_grace_period (Docker's default is 10s)");
            // The drain may take the whole timeout; syncing and closing RocksDB comes after it.
            assertTrue(Compose.duration(grace.toString()).compareTo(shutdown.plusSeconds(5)) >= 0,
                    service + ": stop_grace_period " + grace + " must exceed --shutdown-timeout " + shutdown
                            + " by at least 5s, or SIGKILL cuts the drain short");
            assertEquals("SIGTERM", compose.service(service).get("stop_signal"), service);
        }
        // Without compose, `docker stop` waits 10s: the image's own default must fit in that.
        assertTrue(Compose.duration(imageEnv.get("LARDER_SHUTDOWN_TIMEOUT")).compareTo(Duration.ofSeconds(10)) < 0,
                "the image's LARDER_SHUTDOWN_TIMEOUT must be under Docker's default stop timeout of 10s");
    }

    @Test
    void larderHealthcheckIsTheImagesAndTmpIsExecutable() {
        List<String> imageCheck = Dockerfile.execForm(healthcheckCommand());
        for (String service : compose.larderServices()) {
            Map<String, Object> healthcheck = Compose.map(compose.service(service), "healthcheck");
            assertNotNull(healthcheck, service);
            List<String> test = Compose.strings(healthcheck.get("test"));
            assertEquals("CMD", test.get(0), service);
            assertEquals(imageCheck, test.subList(1, test.size()), service + " runs the image's health check");

            if (Boolean.TRUE.equals(compose.service(service).get("read_only"))) {
                List<String> tmpfs = Compose.strings(compose.service(service).get("tmpfs"));
                String tmpdir = javaTmpdir();
                String mount = tmpfs.stream().filter(t -> t.split(":")[0].equals(tmpdir)).findFirst()
                        .orElseThrow(() -> new AssertionError(service + " has a read-only root but no tmpfs at "
                                + tmpdir + ", where RocksDB extracts its native library"));
                List<String> options = List.of(mount.substring(mount.indexOf(':') + 1).split(","));
                assertTrue(options.contains("exec") && !options.contains("noexec"),
                        service + ": the tmpfs at " + tmpdir + " must be mounted with exec: " + mount);
            }
        }
    }

    @Test
    void dependentsWaitForHealthyServices() {
        assertEquals(Map.of("larder", Map.of("condition", "service_healthy")),
                compose.service("prometheus").get("depends_on"));
        assertEquals(Map.of("prometheus", Map.of("condition", "service_healthy")),
                compose.service("grafana").get("depends_on"));
        Map<String, Object> nginxDeps = Compose.map(compose.service("nginx"), "depends_on");
        assertEquals(new TreeSet<>(CLUSTER_NODES), new TreeSet<>(nginxDeps.keySet()));
        nginxDeps.values().forEach(v -> assertEquals(Map.of("condition", "service_healthy"), v));
        // service_healthy on a service without a health check would wait forever.
        for (String service : compose.services().keySet()) {
            Object deps = compose.service(service).get("depends_on");
            if (deps instanceof Map<?, ?> m) {
                for (Object dependency : m.keySet()) {
                    assertTrue(compose.service(dependency.toString()).containsKey("healthcheck"),
                            service + " waits for " + dependency + " to be healthy, which has no healthcheck");
                }
            }
        }
    }

    @Test
    void bindMountsExistInTheRepository() {
        for (String service : compose.services().keySet()) {
            for (String[] volume : compose.volumes(service)) {
                if (!volume[0].startsWith("./")) {
                    continue;
                }
                Path source = Repo.file(volume[0].substring(2));
                // The dashboards directory belongs to the metrics work; Docker creates a missing bind source as an
                // empty directory, which Grafana's file provider accepts.
                if (volume[0].equals("./docs/grafana")) {
                    continue;
                }
                assertTrue(Files.exists(source), service + ": bind mount source " + volume[0] + " does not exist");
                assertTrue(volume.length == 3 && volume[2].equals("ro"), service + ": mount " + volume[0] + " read-only");
            }
        }
    }

    @Test
    void prometheusScrapesTheAdminPortOfEveryLarderContainer() {
        Map<String, Object> prometheus = Repo.yaml("deploy/prometheus/prometheus.yml");
        assertTrue(compose.volumes("prometheus").stream()
                .anyMatch(v -> v[0].equals("./deploy/prometheus") && v[1].equals("/etc/prometheus")));
        assertTrue(Compose.strings(compose.service("prometheus").get("command"))
                .contains("--config.file=/etc/prometheus/prometheus.yml"));

        Map<String, Set<String>> targetsByJob = new TreeMap<>();
        for (Object raw : (List<?>) prometheus.get("scrape_configs")) {
            Map<String, Object> job = Compose.asMap(raw);
            assertEquals("/metrics", job.get("metrics_path"), job.get("job_name").toString());
            Set<String> targets = new TreeSet<>();
            for (Object sc : listOrEmpty(job.get("static_configs"))) {
                targets.addAll(Compose.strings(Compose.asMap(sc).get("targets")));
            }
            targetsByJob.put(job.get("job_name").toString(), targets);
        }
        Set<String> cluster = new TreeSet<>();
        for (String node : CLUSTER_NODES) {
            cluster.add("127.0.0.1:" + larderSetting(node, "LARDER_ADMIN_PORT"));
        }
        assertEquals(Map.of("larder", Set.of("127.0.0.1:" + larderSetting("larder", "LARDER_ADMIN_PORT")),
                "larder-cluster", cluster), targetsByJob);
        // The healthcheck asks the port Prometheus listens on.
        List<String> check = Compose.strings(Compose.map(compose.service("prometheus"), "healthcheck").get("test"));
        assertTrue(String.join(" ", check).contains("/dev/tcp/127.0.0.1/" + prometheusPort() + " "), check.toString());
    }

    @Test
    void grafanaReadsPrometheusAndTheRepositorysDashboards() throws IOException {
        Map<String, Object> datasources = Repo.yaml("deploy/grafana/provisioning/datasources/prometheus.yml");
        List<?> list = (List<?>) datasources.get("datasources");
        assertEquals(1, list.size());
        Map<String, Object> ds = Compose.asMap(list.get(0));
        assertEquals("prometheus", ds.get("type"));
        assertEquals("http://127.0.0.1:" + prometheusPort(), ds.get("url"), "where the compose service listens");
        Map<String, Object> global = Compose.map(Repo.yaml("deploy/prometheus/prometheus.yml"), "global");
        assertEquals(global.get("scrape_interval"), Compose.map(ds, "jsonData").get("timeInterval"),
                "Grafana's minimum interval is Prometheus' scrape interval");

        Map<String, Object> dashboards = Repo.yaml("deploy/grafana/provisioning/dashboards/larder.yml");
        Map<String, Object> provider = Compose.asMap(((List<?>) dashboards.get("providers")).get(0));
        assertEquals("file", provider.get("type"));
        String path = Compose.map(provider, "options").get("path").toString();
        assertTrue(compose.volumes("grafana").stream()
                        .anyMatch(v -> v[0].equals("./docs/grafana") && v[1].equals(path)),
                "docs/grafana must be mounted where the dashboard provider reads: " + path);
        assertTrue(compose.volumes("grafana").stream().anyMatch(v -> v[0].equals("./deploy/grafana/provisioning")
                && v[1].equals("/etc/grafana/provisioning")));

        // Whatever dashboards are in the repository must at least be JSON Grafana can load.
        Path dir = Repo.file("docs/grafana");
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path json : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                    assertTrue(new ObjectMapper().readTree(json.toFile()).has("panels"), json + " has no panels");
                }
            }
        }
    }

    @Test
    void nginxTemplateIsFilledByTheComposeEnvironmentAndRoutesToTheShards() {
        Map<String, String> env = compose.environment("nginx");
        String filter = env.get("NGINX_ENVSUBST_FILTER");
        assertNotNull(filter, "without a filter envsubst would also blank nginx's own variables");
        assertTrue(compose.volumes("nginx").stream()
                .anyMatch(v -> v[0].equals("./deploy/nginx/templates") && v[1].equals("/etc/nginx/templates")));
        Set<String> used = new TreeSet<>();
        Matcher m = TEMPLATE_VARIABLE.matcher(Repo.text(NginxCluster.TEMPLATE));
        while (m.find()) {
            used.add(m.group(1));
        }
        for (String variable : used) {
            assertTrue(Pattern.compile(filter).matcher(variable).find(), variable + " is outside " + filter);
            assertTrue(env.containsKey(variable), variable + " is used by the template but not set for nginx");
        }
        Set<String> upstreams = new TreeSet<>();
        env.forEach((name, value) -> {
            if (name.startsWith("LARDER_NODE_")) {
                upstreams.add(value);
            }
        });
        Set<String> expected = new TreeSet<>();
        for (String node : CLUSTER_NODES) {
            expected.add("127.0.0.1:" + larderSetting(node, "LARDER_PORT"));
        }
        assertEquals(expected, upstreams, "nginx routes to every shard's data port, and only to them");
    }

    private String healthcheckCommand() {
        String healthcheck = Dockerfile.single(Dockerfile.parse(Repo.text("Dockerfile")).finalStage(), "HEALTHCHECK");
        int cmd = healthcheck.indexOf("CMD ");
        assertTrue(cmd >= 0, healthcheck);
        return healthcheck.substring(cmd + 4).strip();
    }

    private String javaTmpdir() {
        for (String word : Dockerfile.words(imageEnv.get("JDK_JAVA_OPTIONS"))) {
            if (word.startsWith("-Djava.io.tmpdir=")) {
                return word.substring("-Djava.io.tmpdir=".length());
            }
        }
        throw new AssertionError("JDK_JAVA_OPTIONS sets no java.io.tmpdir");
    }

    private static List<?> listOrEmpty(Object value) {
        return value == null ? List.of() : (List<?>) value;
    }
}
