package dev.larder.server.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.Exposition;
import dev.larder.server.ForwardingStore;
import dev.larder.server.LarderServer;
import dev.larder.server.LeakDetection;
import dev.larder.server.RawHttp;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.config.TransportKind;
import dev.larder.server.http.Transport;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.metrics.LarderMeters;
import dev.larder.storage.RocksDbStore;
import dev.larder.storage.Store;
import dev.larder.storage.StoreOptions;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The admin listener on real sockets beside a real data listener, store and registry. */
@ExtendWith(LeakDetection.class)
class AdminServerTest {

    @TempDir
    Path dir;

    private final CountDownLatch storageGate = new CountDownLatch(1);
    private final AtomicBoolean gateGets = new AtomicBoolean();
    private final java.util.concurrent.Semaphore gateEntered = new java.util.concurrent.Semaphore(0);
    private RocksDbStore store;
    private LarderMeters meters;
    private LarderServer server;
    private ReadyEndpoint ready;
    private AdminServer admin;
    private final AtomicBoolean healthy = new AtomicBoolean(true);

    private void start(int workers, int queueSize) {
        start(workers, queueSize, RejectionMode.ABORT);
    }

    private void start(int workers, int queueSize, RejectionMode rejection) {
        store = RocksDbStore.open(StoreOptions.defaults(dir.resolve("data")));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        meters = new LarderMeters(registry);
        ServerOptions options = ServerOptions.builder(2).port(0).ioThreads(1).workers(workers).queueSize(queueSize)
                .rejection(rejection).shutdownTimeout(Duration.ofSeconds(2)).build();
        server = LarderServer.start(options, new GatedStore(store), meters.observer());
        meters.bindServer(server);
        meters.bindStore(store.stats());
        ready = new ReadyEndpoint(List.of(
                () -> server.ready() ? Optional.empty() : Optional.of("data listener not serving"),
                () -> healthy.get() ? Optional.empty() : Optional.of("test says no")));
        Map<String, AdminEndpoint> endpoints = new LinkedHashMap<>();
        endpoints.put("/metrics", new MetricsEndpoint(registry));
        endpoints.put("/health/live", new LiveEndpoint());
        endpoints.put("/health/ready", ready);
        admin = AdminServer.start(new AdminOptions("127.0.0.1", 0), Transport.select(TransportKind.AUTO), endpoints);
    }

    @AfterEach
    void stop() {
        storageGate.countDown();
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
        if (meters != null) {
            meters.close();
        }
        if (store != null) {
            store.close();
        }
    }

    private String adminUrl(String path) {
        return "http://127.0.0.1:" + admin.localAddress().getPort() + path;
    }

    /**
     * Scrapes {@code path} until {@code counted} holds or 10 s pass; the last body. A request's timer is counted once
     * its answer is on the wire, so the client can hold the answer a moment before the scrape sees it.
     */
    private String scrapeUntil(String path, Predicate<String> counted) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String body = Http.get(adminUrl(path)).body();
        while (!counted.test(body) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            body = Http.get(adminUrl(path)).body();
        }
        return body;
    }

    private String dataUrl(String pathAndQuery) {
        return "http://127.0.0.1:" + server.localAddress().getPort() + pathAndQuery;
    }

    @Test
    void metricsInPrometheusTextByDefaultAndOpenMetricsWhenAsked() throws Exception {
        start(2, 16);
        HttpResponse<String> put = Http.send(HttpRequest.newBuilder(URI.create(dataUrl("/v0/entity?id=secret-id-1")))
                .PUT(HttpRequest.BodyPublishers.ofString("v")).build());
        assertEquals(201, put.statusCode());
        assertEquals(404, Http.get(dataUrl("/v0/entity?id=absent")).statusCode());
        scrapeUntil("/metrics", b -> b.contains("status=\"404\",uri=\"/v0/entity\"} 1"));

        HttpResponse<String> text = Http.get(adminUrl("/metrics"));
        assertEquals(200, text.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", text.headers().firstValue("content-type").orElse(""));
        String body = text.body();
        assertTrue(body.contains("http_server_requests_seconds_count{method=\"PUT\",outcome=\"SUCCESS\","
                + "status=\"201\",uri=\"/v0/entity\"} 1"), body);
        assertTrue(body.contains("status=\"404\",uri=\"/v0/entity\"} 1"), body);
        assertFalse(body.contains("secret-id-1"), "raw ids must never become tags");
        for (String series : new String[] {"http_server_requests_seconds_bucket{", "larder_queue_wait_seconds_bucket{",
                "larder_service_time_seconds_count ", "larder_storage_calls_seconds_count{operation=\"put\"",
                "larder_rejections_total{", "larder_worker_pending{worker=\"0\"}",
                "larder_worker_pending{worker=\"1\"}",
                "larder_queue_pending ", "larder_queue_capacity 32", "larder_connections_active ",
                "netty_eventexecutor_tasks_pending{", "netty_allocator_memory_used{", "larder_rocksdb_keys_estimate 1",
                "larder_rocksdb_block_cache_capacity_bytes ", "larder_rocksdb_written_bytes_total ",
                "jvm_memory_used_bytes{", "jvm_buffer_memory_used_bytes{", "jvm_gc_", "jvm_threads_live_threads ",
                "jvm_classes_loaded_classes ", "process_cpu_usage ", "process_uptime_seconds "}) {
            assertTrue(body.contains(series), "missing " + series);
        }
        assertFalse(body.contains("larder_limit_current"), "no adaptive limit, no limit gauge");

        HttpResponse<String> open = Http.get(adminUrl("/metrics"),
                "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1");
        assertEquals(200, open.statusCode());
        assertTrue(open.headers().firstValue("content-type").orElse("").startsWith("application/openmetrics-text"));
        assertTrue(open.body().endsWith("# EOF\n"), "OpenMetrics ends with # EOF");
    }

    @Test
    void metricsNamedInTheQueryAreAnsweredAlone() throws Exception {
        start(1, 16);
        assertEquals(201, Http.send(HttpRequest.newBuilder(URI.create(dataUrl("/v0/entity?id=k")))
                .PUT(HttpRequest.BodyPublishers.ofString("v")).build()).statusCode());

        // A counter named as its series reads (with _total) and a timer by its metric name.
        String twoPath = "/metrics?name[]=larder_rocksdb_written_bytes_total&name%5B%5D=larder_service_time_seconds";
        String twoBody = scrapeUntil(twoPath, b -> b.contains("larder_service_time_seconds_count 1"));
        HttpResponse<String> two = Http.get(adminUrl(twoPath));
        assertEquals(200, two.statusCode());
        assertEquals(Set.of("larder_rocksdb_written_bytes_total", "larder_service_time_seconds"),
                metricNames(two.body()), two.body());
        assertTrue(twoBody.contains("larder_service_time_seconds_count 1"), twoBody);

        HttpResponse<String> count = Http.get(adminUrl("/metrics?name[]=larder_service_time_seconds_count"),
                "application/openmetrics-text;version=1.0.0");
        assertEquals(Set.of("larder_service_time_seconds"), metricNames(count.body()), count.body());
        assertTrue(count.body().endsWith("# EOF\n"), count.body());

        HttpResponse<String> none = Http.get(adminUrl("/metrics?name[]=no_such_metric"));
        assertEquals(200, none.statusCode());
        assertEquals("", none.body());
        assertTrue(Http.get(adminUrl("/metrics")).body().contains("jvm_threads_live_threads "),
                "without name[] every metric is answered");
    }

    /** The metrics a Prometheus exposition describes, from its TYPE lines. */
    private static Set<String> metricNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                names.add(line.split(" ")[2]);
            }
        }
        return names;
    }

    @Test
    void liveAndReadyAnswerAndReadinessFailsFirstOnShutdown() throws Exception {
        start(1, 16);
        assertEquals(200, Http.get(adminUrl("/health/live")).statusCode());
        assertEquals(200, Http.get(adminUrl("/health/ready")).statusCode());

        healthy.set(false);
        HttpResponse<String> failing = Http.get(adminUrl("/health/ready"));
        assertEquals(503, failing.statusCode());
        assertTrue(failing.body().contains("test says no"), failing.body());
        healthy.set(true);

        ready.beginShutdown();
        HttpResponse<String> stopping = Http.get(adminUrl("/health/ready"));
        assertEquals(503, stopping.statusCode());
        assertTrue(stopping.body().contains("shutting down"), stopping.body());
        // The data port still serves while readiness already says go away.
        assertEquals(404, Http.get(dataUrl("/v0/entity?id=absent")).statusCode());
        assertEquals(200, Http.get(adminUrl("/health/live")).statusCode());

        server.close();
        assertTrue(Http.get(adminUrl("/health/ready")).body().contains("data listener not serving"));
    }

    @Test
    void unknownPathsAndMethodsAreRefused() throws Exception {
        start(1, 16);
        HttpResponse<String> missing = Http.get(adminUrl("/nope"));
        assertEquals(404, missing.statusCode());
        assertTrue(missing.body().contains("/metrics"), missing.body());
        HttpResponse<String> post = Http.send(HttpRequest.newBuilder(URI.create(adminUrl("/metrics")))
                .POST(HttpRequest.BodyPublishers.noBody()).build());
        assertEquals(405, post.statusCode());
        assertEquals("GET", post.headers().firstValue("allow").orElse(""));
    }

    @Test
    void absoluteFormTargetsAreServedAsTheirPath() throws Exception {
        start(1, 16);
        try (RawHttp raw = new RawHttp(admin.localAddress())) {
            RawHttp.Response live = raw.exchange("GET", "http://example.com:8081/health/live", null);
            assertEquals(200, live.status(), live.text());
            RawHttp.Response metrics = raw.exchange("GET", "HTTP://example.com/metrics?x=1", null);
            assertEquals(200, metrics.status(), metrics.text());
            assertTrue(metrics.text().contains("larder_queue_capacity"), metrics.text());
            RawHttp.Response missing = raw.exchange("GET", "http://example.com/nope", null);
            assertEquals(404, missing.status());
            assertTrue(missing.text().contains("no such admin path /nope"), missing.text());
            RawHttp.Response otherScheme = raw.exchange("GET", "ftp://example.com/metrics", null);
            assertEquals(404, otherScheme.status(), otherScheme.text());
        }
    }

    @Test
    void answersWhileTheDataPortIsSaturatedAndShowsTheOverload() throws Exception {
        start(1, 16);
        gateGets.set(true);
        int sent = 40;
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < sent; i++) {
            responses.add(Http.client().sendAsync(HttpRequest.newBuilder(URI.create(dataUrl("/v0/entity?id=k" + i)))
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString()));
            if (i == 0) {
                // Alone, so the worker's run holds only this one (it takes what is queued as one run).
                assertTrue(gateEntered.tryAcquire(10, TimeUnit.SECONDS), "first request never reached storage");
            }
        }
        // One request blocks the only worker, 16 wait in its queue, the rest are refused at once.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int rejected = 0;
        while (System.nanoTime() < deadline) {
            rejected = (int) responses.stream().filter(f -> f.isDone() && f.join().statusCode() == 503).count();
            if (rejected == sent - 17) {
                break;
            }
            Thread.sleep(10);
        }
        assertEquals(sent - 17, rejected);

        long started = System.nanoTime();
        HttpResponse<String> metrics = Http.get(adminUrl("/metrics"));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(200, metrics.statusCode());
        assertTrue(tookMillis < 5_000, "admin answered in " + tookMillis + " ms");
        assertEquals(200, Http.get(adminUrl("/health/ready")).statusCode());
        String body = metrics.body();
        assertEquals(16.0, value(body, "larder_queue_pending"));
        assertEquals(16.0, value(body, "larder_worker_pending{worker=\"0\"}"));
        assertEquals(sent - 17.0, value(body, "larder_rejections_total{mode=\"abort\",reason=\"queue_full\"}"));
        String refused = "http_server_requests_seconds_count{method=\"GET\",outcome=\"SERVER_ERROR\",status=\"503\","
                + "uri=\"/v0/entity\"}";
        assertEquals(sent - 17.0, value(scrapeUntil("/metrics",
                b -> Exposition.value(b, refused).orElse(-1) == sent - 17.0), refused));

        storageGate.countDown();
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            int status = response.get(30, TimeUnit.SECONDS).statusCode();
            assertTrue(status == 404 || status == 503, "status " + status);
        }
    }

    /**
     * With one worker the adaptive limit starts at 8; with the worker held, 8 are admitted (1 running, 7 queued) and
     * the rest refused at once: the gauges and the rejection counter show exactly that.
     */
    @Test
    void adaptiveLimitGaugesShowTheLimitAndWhatItAdmitted() throws Exception {
        start(1, 16, RejectionMode.ADAPTIVE);
        assertEquals(8, server.concurrencyLimit());
        gateGets.set(true);
        int sent = 20;
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < sent; i++) {
            responses.add(Http.client().sendAsync(HttpRequest.newBuilder(URI.create(dataUrl("/v0/entity?id=k" + i)))
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString()));
            if (i == 0) {
                assertTrue(gateEntered.tryAcquire(10, TimeUnit.SECONDS), "first request never reached storage");
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int rejected = 0;
        while (System.nanoTime() < deadline) {
            rejected = (int) responses.stream().filter(f -> f.isDone() && f.join().statusCode() == 503).count();
            if (rejected == sent - 8) {
                break;
            }
            Thread.sleep(10);
        }
        assertEquals(sent - 8, rejected);
        String body = Http.get(adminUrl("/metrics")).body();
        assertEquals(8.0, value(body, "larder_limit_current"));
        assertEquals(8.0, value(body, "larder_limit_inflight"));
        assertEquals(7.0, value(body, "larder_queue_pending"));
        assertEquals(sent - 8.0, value(body, "larder_rejections_total{mode=\"adaptive\",reason=\"over_limit\"}"));
        storageGate.countDown();
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            int status = response.get(30, TimeUnit.SECONDS).statusCode();
            assertTrue(status == 404 || status == 503, "status " + status);
        }
    }

    private static double value(String exposition, String series) {
        OptionalDouble value = Exposition.value(exposition, series);
        assertTrue(value.isPresent(), "no series " + series);
        return value.getAsDouble();
    }

    /** The real store, except that reads wait for the test to open the gate (when asked to). */
    private final class GatedStore extends ForwardingStore {
        GatedStore(Store delegate) {
            super(delegate);
        }

        @Override
        public byte[] get(byte[] key) {
            if (gateGets.get()) {
                gateEntered.release();
                try {
                    storageGate.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return delegate.get(key);
        }
    }
}
