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

/** The jar as users run it: write, SIGTERM, exit 0, restart on the same directory, read everything back. */
class GracefulShutdownIT {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void sigtermExitsZeroAndKeepsEveryAcknowledgedWrite() throws Exception {
        Path data = dir.resolve("data");
        try (LarderProcess larder = LarderProcess.serve(data)) {
            for (int i = 0; i < 200; i++) {
                HttpResponse<String> put = http.send(HttpRequest.newBuilder(
                                URI.create(larder.baseUrl() + "/v0/entity?id=key" + i))
                        .PUT(HttpRequest.BodyPublishers.ofString("value-" + i)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(201, put.statusCode());
            }
            larder.terminate();
            assertEquals(0, larder.awaitExit(Duration.ofSeconds(20)), larder.output());
            assertTrue(larder.output().contains("SIGTERM received"), larder.output());
        }
        try (LarderProcess larder = LarderProcess.serve(data)) {
            for (int i = 0; i < 200; i++) {
                HttpResponse<String> get = http.send(HttpRequest.newBuilder(
                        URI.create(larder.baseUrl() + "/v0/entity?id=key" + i)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, get.statusCode());
                assertEquals("value-" + i, get.body());
            }
        }
    }

    @Test
    void secondServerOnSameDataDirectoryExitsNonZeroWithAClearMessage() throws Exception {
        Path data = dir.resolve("locked");
        try (LarderProcess first = LarderProcess.serve(data)) {
            LarderProcess second = LarderProcess.run("serve", "--port", "0", "--data-dir", data.toString());
            int status = second.awaitExit(Duration.ofSeconds(60));
            assertEquals(1, status, second.output());
            assertTrue(second.output().contains("already in use by another process"), second.output());
            assertTrue(first.alive());
        }
    }

    @Test
    void portAlreadyInUseExitsOneWithAClearMessage() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            LarderProcess second = LarderProcess.run("serve", "--port", Integer.toString(taken.getLocalPort()),
                    "--admin-port", "0", "--data-dir", dir.resolve("busy-port").toString());
            assertEquals(1, second.awaitExit(Duration.ofSeconds(60)), second.output());
            assertTrue(second.output().contains("cannot listen on 127.0.0.1:" + taken.getLocalPort()),
                    second.output());
            // Refused before the store opened and the warm-up ran, not after the warm-up's seconds.
            assertFalse(second.output().contains("warm-up"), second.output());
            assertFalse(java.nio.file.Files.exists(dir.resolve("busy-port")), "the store was opened");
        }
    }

    @Test
    void badFlagValueExitsTwoNamingTheFlag() throws Exception {
        LarderProcess bad = LarderProcess.run("serve", "--queue-size", "many");
        assertEquals(2, bad.awaitExit(Duration.ofSeconds(60)), bad.output());
        assertTrue(bad.output().contains("--queue-size"), bad.output());
        LarderProcess small = LarderProcess.run("serve", "--queue-size", "4");
        assertEquals(2, small.awaitExit(Duration.ofSeconds(60)), small.output());
        assertTrue(small.output().contains("queue-size"), small.output());
    }
}
