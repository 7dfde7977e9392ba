package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every PromQL query of {@code docs/grafana/larder.json} selects series that the real server's {@code /metrics}
 * exports, with label matchers that match what is exported: a renamed meter breaks this test, not the dashboard.
 */
class DashboardQueriesIT {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void everyDashboardQueryNamesAnExportedSeries() throws Exception {
        List<String> exprs = DashboardQueries.expressions();
        assertTrue(exprs.size() > 20, "dashboard queries: " + exprs.size());
        // Adaptive mode exports every series the default mode does, plus the limit gauges its panel shows.
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--admin-port",
                Integer.toString(freePort()), "--rejection", "adaptive")) {
            // Traffic of every kind the dashboard shows, and a GC so the JVM's pause timers exist.
            for (int i = 0; i < 20; i++) {
                send(larder, "PUT", "/v0/entity?id=k" + i, "value");
                send(larder, "GET", "/v0/entity?id=k" + i, null);
                send(larder, "GET", "/v0/entity?id=missing" + i, null);
            }
            send(larder, "GET", "/v0/entities?start=k", null);
            Process gc = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(larder.pid()), "GC.run").redirectErrorStream(true).start();
            assertEquals(0, gc.waitFor(), new String(gc.getInputStream().readAllBytes()));
            String exposition = http.send(HttpRequest.newBuilder(URI.create(larder.adminUrl() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();

            List<String> problems = new ArrayList<>();
            for (String expr : exprs) {
                List<DashboardQueries.Selector> selectors = DashboardQueries.selectors(expr);
                if (selectors.isEmpty()) {
                    problems.add("no series found in: " + expr);
                }
                for (DashboardQueries.Selector selector : selectors) {
                    String problem = check(exposition, selector);
                    if (problem != null) {
                        problems.add(problem + "  in: " + expr);
                    }
                }
            }
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        }
    }

    /** Null when some exported sample of the metric satisfies the selector's equality matchers. */
    private static String check(String exposition, DashboardQueries.Selector selector) {
        List<String> samples = exposition.lines()
                .filter(l -> l.startsWith(selector.metric() + "{") || l.startsWith(selector.metric() + " "))
                .toList();
        if (samples.isEmpty()) {
            return "series " + selector.metric() + " is not exported";
        }
        for (Map.Entry<String, String> matcher : selector.matchers().entrySet()) {
            String label = matcher.getKey();
            if (DashboardQueries.TARGET_LABELS.contains(label)) {
                continue;
            }
            String condition = matcher.getValue();
            boolean labelExists = samples.stream().anyMatch(l -> l.contains(label + "=\""));
            if (!labelExists) {
                return "series " + selector.metric() + " has no label " + label;
            }
            if (condition.startsWith("=") && !condition.startsWith("=~")) {
                String wanted = label + "=\"" + condition.substring(1) + "\"";
                if (samples.stream().noneMatch(l -> l.contains(wanted))) {
                    return "series " + selector.metric() + " has no sample with " + wanted;
                }
            }
        }
        return null;
    }

    private void send(LarderProcess larder, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(larder.baseUrl() + pathAndQuery));
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        http.send(request.build(), HttpResponse.BodyHandlers.discarding());
    }

    static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
