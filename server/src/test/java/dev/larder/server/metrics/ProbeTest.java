package dev.larder.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.distribution.pause.NoPauseDetector;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProbeTest {
    @Test
    void probe() throws Exception {
        for (int variant = 0; variant < 4; variant++) {
            PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            if (variant % 2 == 1) r.config().pauseDetector(new NoPauseDetector());
            MicrometerObserver o = new MicrometerObserver(r);
            io.micrometer.core.instrument.Timer plain = io.micrometer.core.instrument.Timer.builder("plain").register(r);
            for (int k = 0; k < 3; k++) {
                long t = System.nanoTime();
                for (int i = 0; i < 1_000_000; i++) {
                    if (variant < 2) o.requestCompleted("GET", "/v0/entity", 200, 50_000 + (i & 0xffff) * 16L);
                    else plain.record(50_000 + (i & 0xffff) * 16L, TimeUnit.NANOSECONDS);
                }
                System.out.printf("variant %d (%s, %s): %.0f ns per record%n", variant, variant < 2 ? "histogram timer" : "plain timer",
                        variant % 2 == 1 ? "no pause detector" : "default pause detector", (System.nanoTime() - t) / 1e6);
            }
            r.close();
        }
    }
}
