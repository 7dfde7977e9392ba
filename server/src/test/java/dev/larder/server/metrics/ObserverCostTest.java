package dev.larder.server.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What the observer costs per request on the registry the server really uses: the four calls one GET makes
 * (request, queue wait, service time, storage call), from two threads at once like an event loop and a worker.
 * Prints the figure (docs/metrics.md quotes it) and fails only on a gross regression, such as a meter registered
 * per request; the end-to-end ratio is measured with bench/metrics-cost.sh.
 */
class ObserverCostTest {

    private static final int WARMUP = 300_000;
    private static final int MEASURED = 1_000_000;

    @Test
    void recordingOneRequestCostsWellUnderAMicrosecond() throws Exception {
        // Built as the CLI builds it: Prometheus registry on a coarse clock, through LarderMeters.
        CoarseClock clock = new CoarseClock(Duration.ofMillis(10));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT,
                new PrometheusRegistry(), clock);
        LarderMeters meters = new LarderMeters(registry, clock);
        MicrometerObserver observer = (MicrometerObserver) meters.observer();
        run(observer, WARMUP);
        long single = System.nanoTime();
        run(observer, MEASURED);
        double nanosSingle = (System.nanoTime() - single) / (double) MEASURED;
        long started = System.nanoTime();
        Thread other = new Thread(() -> run(observer, MEASURED));
        other.start();
        run(observer, MEASURED);
        other.join();
        double nanosPerRequest = (System.nanoTime() - started) / (double) MEASURED;
        System.out.printf("observer cost: %.0f ns per request on one thread, %.0f ns on each of two threads at once%n",
                nanosSingle, nanosPerRequest);
        meters.close();
        assertTrue(nanosPerRequest < 10_000, nanosPerRequest + " ns per request");
    }

    private static void run(MicrometerObserver observer, int requests) {
        for (int i = 0; i < requests; i++) {
            long latency = 50_000 + (i & 0xffff) * 16L;
            observer.queueWait(latency / 4);
            observer.storageCall("get", latency / 8, true);
            observer.serviceTime(latency / 2);
            observer.requestCompleted("GET", "/v0/entity", (i & 7) == 0 ? 404 : 200, latency);
        }
    }
}
