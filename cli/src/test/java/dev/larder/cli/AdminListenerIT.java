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

/** The admin listener as the jar runs it: flags, the startup line, health, and a flame graph from the shaded jar. */
class AdminListenerIT {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void startupLineNamesBothListenersAndTheJarCanProfileItself() throws Exception {
        int adminPort = DashboardQueriesIT.freePort();
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--admin-port",
                Integer.toString(adminPort), "--profiling")) {
            assertEquals(adminPort, larder.adminPort(), larder.output());
            assertTrue(larder.output().contains("metrics=on"), larder.output());
            assertEquals("live\n", get(larder.adminUrl() + "/health/live").body());
            assertEquals(200, get(larder.adminUrl() + "/health/ready").statusCode());
            assertEquals(200, get(larder.adminUrl() + "/metrics").statusCode());

            HttpResponse<String> profile = get(larder.adminUrl() + "/debug/profile?event=cpu&seconds=1");
            if (profile.statusCode() == 501) {
                System.out.println("AdminListenerIT: profiling unavailable here: " + profile.body());
                assertTrue(larder.output().contains("profiler warm-up: profiling unavailable: "), larder.output());
            } else {
                // Warmed up before the listeners opened, so a first profile under load does not pay for it.
                int warmed = larder.output().indexOf("profiler warmed up (");
                assertTrue(warmed >= 0 && warmed < larder.output().indexOf("larder started"), larder.output());
                assertEquals(200, profile.statusCode(), profile.body());
                assertTrue(profile.body().startsWith("<!DOCTYPE html>"), "a flame graph page");
                assertTrue(profile.headers().firstValue("X-Profile-Engine").isPresent());
            }
        }
    }

    @Test
    void metricsOffStillServesHealthAndTheData() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"), "--admin-port",
                Integer.toString(DashboardQueriesIT.freePort()), "--metrics=false")) {
            assertTrue(larder.output().contains("metrics=off"), larder.output());
            assertEquals(404, get(larder.adminUrl() + "/metrics").statusCode());
            assertEquals(200, get(larder.adminUrl() + "/health/ready").statusCode());
            assertEquals(404, get(larder.baseUrl() + "/v0/entity?id=nothing").statusCode());
        }
    }

    @Test
    void adminPortZeroMeansNoAdminListener() throws Exception {
        try (LarderProcess larder = LarderProcess.serve(dir.resolve("data"))) {
            assertEquals(-1, larder.adminPort());
            assertTrue(larder.output().contains("admin off"), larder.output());
        }
    }

    @Test
    void badAdminPortsExitTwoNamingTheFlag() throws Exception {
        LarderProcess negative = LarderProcess.run("serve", "--admin-port", "-5", "--data-dir",
                dir.resolve("a").toString());
        assertEquals(2, negative.awaitExit(Duration.ofSeconds(60)), negative.output());
        assertTrue(negative.output().contains("--admin-port"), negative.output());
        LarderProcess same = LarderProcess.run("serve", "--port", "18555", "--admin-port", "18555", "--data-dir",
                dir.resolve("b").toString());
        assertEquals(2, same.awaitExit(Duration.ofSeconds(60)), same.output());
        assertTrue(same.output().contains("--admin-port"), same.output());
    }

    @Test
    void adminPortInUseExitsOneWithAClearMessage() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            LarderProcess larder = LarderProcess.run("serve", "--port", "0", "--admin-port",
                    Integer.toString(taken.getLocalPort()), "--data-dir", dir.resolve("c").toString());
            assertEquals(1, larder.awaitExit(Duration.ofSeconds(60)), larder.output());
            assertTrue(larder.output().contains("cannot start the admin listener"), larder.output());
            // Refused before the store opened and the warm-up ran, not after the warm-up's seconds.
            assertFalse(larder.output().contains("warm-up"), larder.output());
            assertFalse(java.nio.file.Files.exists(dir.resolve("c")), "the store was opened");
        }
    }
}
