package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The default warm-up as the jar runs it: done before the listener opens, invisible in the data and metrics. */
class JitWarmupIT {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theDefaultWarmupRunsBeforeListeningAndLeavesNoTrace() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--admin-port",
                Integer.toString(DashboardQueriesIT.freePort()), "--warmup-requests", "60000")) {
            String out = larder.output();
            int warmedAt = out.indexOf("warm-up: 60000 requests through a throwaway server");
            assertTrue(warmedAt >= 0, out);
            assertTrue(warmedAt < out.indexOf("larder started: "), "the warm-up ends before the listener opens");
            assertFalse(out.contains("warm-up failed"), out);

            assertEquals("", get(larder.baseUrl() + "/v0/entities?start=%00").body(), "no warm-up key in the data");
            String metrics = get(larder.adminUrl() + "/metrics").body();
            assertFalse(metrics.contains("uri=\"/v0/entity\""), "warm-up requests counted in the metrics");
            assertEquals(200, get(larder.adminUrl() + "/health/ready").statusCode());
        }
    }
}
