package dev.larder.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.RejectReason;
import dev.larder.server.config.RejectionMode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class MicrometerObserverTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerObserver observer = new MicrometerObserver(registry);

    @Test
    void requestsAreTaggedByMethodRouteTemplateStatusAndOutcome() {
        observer.requestCompleted("GET", "/v0/entity", 200, 1_000_000);
        observer.requestCompleted("GET", "/v0/entity", 200, 3_000_000);
        observer.requestCompleted("GET", "/v0/entity", 404, 2_000_000);
        observer.requestCompleted("PUT", "/v0/entity", 503, 500_000);

        Timer ok = registry.get("http.server.requests").tags("method", "GET", "uri", "/v0/entity", "status", "200",
                "outcome", "SUCCESS").timer();
        assertEquals(2, ok.count());
        assertEquals(4.0, ok.totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(1, registry.get("http.server.requests").tags("status", "404", "outcome", "CLIENT_ERROR")
                .timer().count());
        assertEquals(1, registry.get("http.server.requests").tags("method", "PUT", "status", "503",
                "outcome", "SERVER_ERROR").timer().count());
    }

    @Test
    void workerRunsAreCountedWithTheirSizes() {
        observer.workerRun(1);
        observer.workerRun(11);
        io.micrometer.core.instrument.DistributionSummary runs = registry.get("larder.worker.run.size").summary();
        assertEquals(2, runs.count());
        assertEquals(12.0, runs.totalAmount(), 1e-9);
        assertEquals(11.0, runs.max(), 1e-9);
    }

    @Test
    void theSameSeriesIsLookedUpNotRegisteredAgain() {
        Timer first = observer.requestTimer("GET", "/v0/entity", 200);
        int meters = registry.getMeters().size();
        for (int i = 0; i < 1000; i++) {
            assertSame(first, observer.requestTimer("GET", "/v0/entity", 200));
        }
        assertEquals(meters, registry.getMeters().size());
    }

    @Test
    void clientChosenMethodsAndOddStatusesCannotMintSeries() {
        for (int i = 0; i < 100; i++) {
            observer.requestCompleted("METHOD" + i, "/v0/entity", 405, 1000);
        }
        observer.requestCompleted("GET", "UNKNOWN", 999, 1000);
        assertEquals(100, registry.get("http.server.requests").tags("method", "OTHER", "status", "405")
                .timer().count());
        assertEquals(1, registry.get("http.server.requests").tags("status", "UNKNOWN").timer().count());
        assertEquals(2, registry.find("http.server.requests").timers().size());
    }

    @Test
    void prometheusGetsABoundedPercentileHistogram() {
        // SimpleMeterRegistry does not publish aggregable histograms; the registry that serves them does.
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new MicrometerObserver(prometheus).requestCompleted("GET", "/v0/entity", 200, 5_000_000);
        List<Double> bounds = new ArrayList<>();
        Matcher m = Pattern.compile("http_server_requests_seconds_bucket\\{[^}]*le=\"([^\"]+)\"").matcher(
                prometheus.scrape());
        while (m.find()) {
            if (!m.group(1).equals("+Inf")) {
                bounds.add(Double.parseDouble(m.group(1)));
            }
        }
        assertTrue(bounds.size() > 10 && bounds.size() < 100, "bucket count " + bounds.size());
        double lowest = bounds.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double highest = bounds.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        assertTrue(lowest >= 100e-6 && lowest < 200e-6, "lowest bucket " + lowest);
        assertTrue(highest >= 10 && highest < 20, "highest bucket " + highest);
        prometheus.close();
    }

    @Test
    void queueWaitServiceTimeAndStorageCallsAreSeparateTimers() {
        observer.queueWait(7_000_000);
        observer.serviceTime(2_000_000);
        observer.storageCall("get", 50_000, true);
        observer.storageCall("put", 80_000, false);
        observer.storageCall(new String("range"), 10_000, true);

        assertEquals(7.0, registry.get("larder.queue.wait").timer().totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(2.0, registry.get("larder.service.time").timer().totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(1, registry.get("larder.storage.calls").tags("operation", "get", "result", "success")
                .timer().count());
        assertEquals(1, registry.get("larder.storage.calls").tags("operation", "put", "result", "failure")
                .timer().count());
        assertEquals(1, registry.get("larder.storage.calls").tags("operation", "range", "result", "success")
                .timer().count());
    }

    @Test
    void rejectionsCountByModeAndReasonAndStartAtZero() {
        for (RejectionMode mode : RejectionMode.values()) {
            for (RejectReason reason : RejectReason.values()) {
                assertNotNull(registry.get("larder.rejections").tags("mode", mode.flag(), "reason", reason.tag())
                        .counter());
            }
        }
        observer.rejected(RejectionMode.ABORT, RejectReason.QUEUE_FULL);
        observer.rejected(RejectionMode.ABORT, RejectReason.QUEUE_FULL);
        observer.rejected(RejectionMode.DISCARD_OLDEST, RejectReason.SHUTTING_DOWN);
        Counter full = registry.get("larder.rejections").tags("mode", "abort", "reason", "queue_full").counter();
        assertEquals(2, full.count());
        assertEquals(1, registry.get("larder.rejections").tags("mode", "discard-oldest", "reason", "shutting_down")
                .counter().count());
        assertEquals(0, registry.get("larder.rejections").tags("mode", "abort", "reason", "queue_delay")
                .counter().count());
    }

    @Test
    void connectionsOpenedAreCounted() {
        observer.connectionOpened();
        observer.connectionOpened();
        observer.connectionClosed();
        assertEquals(2, registry.get("larder.connections.opened").counter().count());
    }
}
