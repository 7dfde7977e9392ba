package dev.larder.server.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LeakDetection;
import dev.larder.server.config.TransportKind;
import dev.larder.server.http.Transport;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code /debug/profile} with the real async-profiler from the Maven artifact: a CPU and an allocation flame graph
 * of this JVM while a thread burns CPU and allocates. Skipped (with the reason printed) only where the library
 * itself reports it cannot load.
 */
@ExtendWith(LeakDetection.class)
class AsyncProfilerTest {

    static volatile long sink;

    private AdminServer admin;
    private final AtomicBoolean working = new AtomicBoolean(true);
    private Thread worker;

    @BeforeEach
    void start() {
        try {
            new AsyncProfilerLoader().call();
        } catch (Exception e) {
            System.out.println("AsyncProfilerTest skipped: " + e.getMessage());
            Assumptions.abort("async-profiler cannot load here: " + e.getMessage());
        }
        admin = AdminServer.start(new AdminOptions("127.0.0.1", 0), Transport.select(TransportKind.AUTO),
                Map.of("/debug/profile", new ProfileEndpoint(new AsyncProfilerLoader())));
        worker = new Thread(this::work, "profiled-work");
        worker.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        working.set(false);
        if (worker != null) {
            worker.join();
        }
        if (admin != null) {
            admin.close();
        }
    }

    private void work() {
        while (working.get()) {
            burnCpu();
            allocateGarbage();
        }
    }

    private static void burnCpu() {
        long x = sink;
        for (int i = 0; i < 200_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        sink = x;
    }

    private static void allocateGarbage() {
        List<byte[]> keep = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            keep.add(new byte[4096 + i]);
        }
        sink += keep.size();
    }

    private HttpResponse<String> profile(String query) throws Exception {
        return Http.get("http://127.0.0.1:" + admin.localAddress().getPort() + "/debug/profile" + query);
    }

    @Test
    void cpuFlameGraph() throws Exception {
        HttpResponse<String> response = profile("?event=cpu&seconds=2");
        assertEquals(200, response.statusCode(), response.body());
        String engine = response.headers().firstValue(ProfileEndpoint.ENGINE_HEADER).orElse("");
        System.out.println("cpu profile engine: " + engine + " "
                + response.headers().firstValue(ProfileEndpoint.FALLBACK_HEADER).orElse("(no fallback)"));
        assertTrue(engine.equals("perf_events") || engine.equals("itimer"), engine);
        assertFlameGraph(response.body(), "burnCpu");
    }

    @Test
    void allocationFlameGraph() throws Exception {
        HttpResponse<String> response = profile("?event=alloc&seconds=2");
        assertEquals(200, response.statusCode(), response.body());
        assertFlameGraph(response.body(), "allocateGarbage");
    }

    @Test
    void collapsedStacksNameTheHotMethod() throws Exception {
        HttpResponse<String> response = profile("?event=cpu&seconds=1&format=collapsed");
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.body().lines().anyMatch(l -> l.contains("AsyncProfilerTest.burnCpu")
                && l.matches(".* \\d+$")), response.body());
    }

    @Test
    void theWarmUpLeavesTheProfilerStoppedForTheFirstProfile() throws Exception {
        ProfileEndpoint warmed = new ProfileEndpoint(new AsyncProfilerLoader());
        AdminServer second = null;
        try {
            String said = warmed.warmUp(Duration.ofSeconds(30));
            assertTrue(said.startsWith("profiler warmed up ("), said);
            second = AdminServer.start(new AdminOptions("127.0.0.1", 0), Transport.select(TransportKind.AUTO),
                    Map.of("/debug/profile", warmed));
            HttpResponse<String> response = Http.get("http://127.0.0.1:" + second.localAddress().getPort()
                    + "/debug/profile?event=cpu&seconds=1&format=collapsed");
            assertEquals(200, response.statusCode(), response.body());
            assertTrue(response.body().lines().anyMatch(l -> l.contains("AsyncProfilerTest.burnCpu")),
                    response.body());
        } finally {
            if (second != null) {
                second.close();
            } else {
                warmed.close();
            }
        }
    }

    private static void assertFlameGraph(String html, String frame) {
        assertTrue(html.startsWith("<!DOCTYPE html>"), html.substring(0, Math.min(200, html.length())));
        assertTrue(html.contains("<canvas id='canvas'"), "flame graph canvas");
        // Frame names are stored prefix-compressed; the method name survives as a suffix.
        assertTrue(html.contains(frame), "frame " + frame + " in the flame graph");
    }
}
