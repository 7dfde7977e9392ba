package dev.larder.cli.deploy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cli.HttpConnection;
import dev.larder.cli.LarderProcess;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image, run as a user would run it: {@code docker run} of larder:local (built by deploy/docker/build-images.sh
 * from this checkout) with a read-only root, an exec tmpfs on /tmp, a 1 GiB memory limit and the image's own
 * non-root user, on the host's network with free loopback ports. Real sockets, real signals from the engine.
 */
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
class ImageContainerIT {

    private static final Duration HEALTHY_WITHIN = Duration.ofSeconds(60);
    private static final long MEMORY_LIMIT = 1L << 30;
    /**
     * For the tests that restart the container: the default warm-up (60,000 requests for the JIT) is proven by
     * {@link #servesAsANonRootUserOnAReadOnlyRoot}, and at about 25 s a start on a 2-core CI machine it was most of
     * what a stop or kill test took. A short one still runs every kind of request before the port opens.
     */
    private static final String[] SHORT_WARMUP = {"-e",
            "LARDER_WARMUP_REQUESTS=" + LarderProcess.SHORT_WARMUP_REQUESTS};

    @TempDir
    Path dir;

    private final String name = "larder-it-" + Long.toHexString(System.nanoTime());
    private int port;
    private int adminPort;

    @BeforeAll
    static void engine() throws Exception {
        Docker.requireEngineAndImages();
    }

    @AfterEach
    void remove() throws Exception {
        Docker.removeQuietly(name);
        Docker.docker("volume", "rm", "-f", name);
    }

    /** {@code docker run -d} of the image as documented, plus {@code extra} options before the image name. */
    private void start(String... extra) throws Exception {
        int[] ports = Docker.freePorts(2);
        port = ports[0];
        adminPort = ports[1];
        List<String> command = new ArrayList<>(List.of("run", "-d", "--name", name, "--network", "host",
                "--read-only", "--tmpfs", "/tmp:exec,mode=1777", "--memory", "1g", "--memory-swap", "1g",
                "-e", "LARDER_HOST=127.0.0.1", "-e", "LARDER_PORT=" + port, "-e", "LARDER_ADMIN_PORT=" + adminPort));
        command.addAll(List.of(extra));
        if (!List.of(extra).contains("-v")) {
            command.addAll(List.of("-v", name + ":/data"));
        }
        command.add(Docker.LARDER_IMAGE);
        Docker.docker(command.toArray(String[]::new)).ok();
    }

    @Test
    void servesAsANonRootUserOnAReadOnlyRoot() throws Exception {
        start();
        Duration healthy = Docker.awaitHealthy(name, HEALTHY_WITHIN);
        System.out.printf("ImageContainerIT: healthy %.1f s after docker run; image %s MiB%n", healthy.toMillis() / 1e3,
                Long.parseLong(Docker.inspect(Docker.LARDER_IMAGE, "{{.Size}}")) >> 20);

        try (HttpConnection http = new HttpConnection(port, 10_000)) {
            assertEquals(201, http.exchange("PUT", "/v0/entity?id=a", "va\n".getBytes(UTF_8)).status());
            assertEquals(201, http.exchange("PUT", "/v0/entity?id=b", "vb\n".getBytes(UTF_8)).status());
            HttpConnection.Response a = http.exchange("GET", "/v0/entity?id=a", null);
            assertEquals(200, a.status());
            assertEquals("va\n", new String(a.body(), UTF_8));
            assertEquals("a\nva\nb\nvb\n", range("a", "c"));
            assertEquals(202, http.exchange("DELETE", "/v0/entity?id=a", null).status());
            assertEquals(404, http.exchange("GET", "/v0/entity?id=a", null).status());
            assertEquals("b\nvb\n", range("a", "c"));
            // Bad input gets a clear 4xx, and the server keeps serving.
            HttpConnection.Response noId = http.exchange("PUT", "/v0/entity", "x".getBytes(UTF_8));
            assertEquals(400, noId.status(), new String(noId.body(), UTF_8));
            assertEquals(405, http.exchange("POST", "/v0/entity?id=b", "x".getBytes(UTF_8)).status());
            assertEquals(200, http.exchange("GET", "/v0/status", null).status());
        }
        try (HttpConnection admin = new HttpConnection(adminPort, 10_000)) {
            HttpConnection.Response metrics = admin.exchange("GET", "/metrics", null);
            assertEquals(200, metrics.status());
            String text = new String(metrics.body(), UTF_8);
            assertTrue(text.contains("http_server_requests_seconds_count{") && text.contains("uri=\"/v0/entity\""),
                    "no request metrics in /metrics");
            assertTrue(text.contains("larder_rocksdb_keys_estimate"), "no RocksDB metrics in /metrics");
        }

        // The image's user, numerically: the JVM (PID 1) and anything exec'd run as 10001.
        assertEquals("10001:10001", Docker.inspect(name, "{{.Config.User}}"));
        assertEquals("10001", Docker.docker("exec", name, "id", "-u").ok().text());
        String status = Docker.docker("exec", name, "cat", "/proc/1/status").ok().out();
        assertTrue(status.lines().anyMatch(l -> l.matches("Uid:\\s+10001\\s+10001\\s+10001\\s+10001")), status);
        assertTrue(Docker.docker("exec", name, "cat", "/proc/1/cmdline").ok().out().contains("/app/larder.jar"));

        // Read-only root: nothing but /data and the /tmp tmpfs can be written.
        assertEquals("true", Docker.inspect(name, "{{.HostConfig.ReadonlyRootfs}}"));
        Docker.Result write = Docker.docker("exec", name, "touch", "/app/probe");
        assertNotEquals(0, write.status());
        assertTrue(write.err().contains("Read-only file system"), write.err());
        Docker.docker("exec", name, "touch", "/data/probe", "/tmp/probe").ok();
        assertTrue(Docker.docker("exec", name, "ls", "/tmp").ok().out().contains("librocksdbjni"),
                "RocksDB's library is extracted in the tmpfs");
    }

    /** What clients saw while the container was stopped under load. */
    private static final class Outcomes {
        final Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();
        final AtomicInteger answered503 = new AtomicInteger();
        final AtomicInteger finishedAfterStop = new AtomicInteger();
        final AtomicInteger notTaken = new AtomicInteger();
        final ConcurrentLinkedQueue<String> broken = new ConcurrentLinkedQueue<>();
        volatile long stoppedAt = Long.MAX_VALUE;
    }

    @Test
    void dockerStopUnderLoadAnswersEveryRequestExitsZeroAndKeepsEveryAcknowledgedWrite() throws Exception {
        start(SHORT_WARMUP);
        Docker.awaitHealthy(name, HEALTHY_WITHIN);
        Outcomes outcomes = new Outcomes();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < 32; c++) {
            int id = c;
            int depth = c < 24 ? 1 : 4;
            Thread client = new Thread(() -> writeUntilStopped(port, id, depth, outcomes), "client-" + c);
            client.start();
            clients.add(client);
        }
        Thread.sleep(2_000);
        outcomes.stoppedAt = System.nanoTime();
        Docker.docker("stop", name).ok();
        long stopMillis = (System.nanoTime() - outcomes.stoppedAt) / 1_000_000;
        for (Thread client : clients) {
            client.join(30_000);
            assertFalse(client.isAlive(), client.getName() + " still waits for an answer");
        }
        int exit = Integer.parseInt(Docker.inspect(name, "{{.State.ExitCode}}"));
        System.out.printf("ImageContainerIT: docker stop under load took %d ms, exit %d; %d writes acknowledged, "
                        + "%d in flight at the stop finished after it, %d answered 503, %d not taken%n", stopMillis,
                exit, outcomes.acknowledged.size(), outcomes.finishedAfterStop.get(), outcomes.answered503.get(),
                outcomes.notTaken.get());
        assertEquals(0, exit, "docker stop must end in a clean exit, not SIGKILL:\n" + Docker.logs(name));
        assertEquals("false", Docker.inspect(name, "{{.State.OOMKilled}}"));
        assertTrue(outcomes.broken.isEmpty(), "cut-off or wrong answers: " + outcomes.broken);
        assertTrue(outcomes.acknowledged.size() > 100, "the load acknowledged too little to prove anything");
        assertTrue(Docker.logs(name).contains("larder stopped"), "the drain ran to its end");

        Docker.docker("start", name).ok();
        Docker.awaitHealthy(name, HEALTHY_WITHIN);
        int found = 0;
        try (HttpConnection http = new HttpConnection(port, 30_000)) {
            for (Map.Entry<String, byte[]> write : outcomes.acknowledged.entrySet()) {
                HttpConnection.Response r = http.exchange("GET", "/v0/entity?id=" + write.getKey(), null);
                assertEquals(200, r.status(), write.getKey() + " was acknowledged but is gone after docker start");
                assertArrayEquals(write.getValue(), r.body(), write.getKey());
                found++;
            }
        }
        assertEquals(outcomes.acknowledged.size(), found);
        System.out.printf("ImageContainerIT: after docker start all %d acknowledged writes read back%n", found);
    }

    /** PUTs {@code depth} at a time on one connection until the server stops taking them. */
    private static void writeUntilStopped(int port, int id, int depth, Outcomes outcomes) {
        Random random = new Random(id);
        try (HttpConnection http = new HttpConnection(port, 20_000)) {
            for (int seq = 0; ; seq += depth) {
                String[] keys = new String[depth];
                byte[][] values = new byte[depth][];
                java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
                for (int i = 0; i < depth; i++) {
                    keys[i] = "c" + id + "-" + (seq + i);
                    values[i] = new byte[1 + random.nextInt(1024)];
                    random.nextBytes(values[i]);
                    batch.writeBytes(HttpConnection.request("PUT", "/v0/entity?id=" + keys[i], values[i]));
                }
                long sentAt = System.nanoTime();
                try {
                    http.send(batch.toByteArray());
                } catch (HttpConnection.NoResponse e) {
                    outcomes.notTaken.addAndGet(depth);
                    return;
                }
                for (int i = 0; i < depth; i++) {
                    HttpConnection.Response r;
                    try {
                        r = http.read();
                    } catch (HttpConnection.NoResponse e) {
                        outcomes.notTaken.addAndGet(depth - i);
                        return;
                    } catch (HttpConnection.PartialResponse e) {
                        outcomes.broken.add(keys[i] + ": " + e.getMessage());
                        return;
                    } catch (SocketTimeoutException e) {
                        outcomes.broken.add(keys[i] + ": no answer within 20 s");
                        return;
                    }
                    if (r.status() == 201) {
                        outcomes.acknowledged.put(keys[i], values[i]);
                        if (sentAt < outcomes.stoppedAt && System.nanoTime() > outcomes.stoppedAt) {
                            outcomes.finishedAfterStop.incrementAndGet();
                        }
                    } else if (r.status() == 503) {
                        outcomes.answered503.incrementAndGet();
                    } else {
                        outcomes.broken.add(keys[i] + ": unexpected " + r.status() + " "
                                + new String(r.body(), UTF_8).strip());
                    }
                    if (r.close()) {
                        outcomes.notTaken.addAndGet(depth - i - 1);
                        return;
                    }
                }
            }
        } catch (IOException e) {
            // connection refused or reset before a request went out: the listener is closed
        }
    }

    /** A key's state as the writers know it: what was acknowledged, and what was in flight when the kill came. */
    private static final class KeyState {
        volatile byte[] acked;
        volatile boolean pending;
        volatile byte[] pendingValue;
    }

    @Test
    void dockerKillDuringWritesLosesNoAcknowledgedWrite() throws Exception {
        start(SHORT_WARMUP);
        Docker.awaitHealthy(name, HEALTHY_WITHIN);
        int threads = 4;
        int keysPerThread = 200;
        KeyState[][] keys = new KeyState[threads][keysPerThread];
        for (KeyState[] row : keys) {
            for (int k = 0; k < keysPerThread; k++) {
                row[k] = new KeyState();
            }
        }
        AtomicLong acknowledged = new AtomicLong();
        for (int round = 1; round <= 2; round++) {
            ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
            AtomicInteger killed = new AtomicInteger();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Random random = new Random(round * 31L + t);
                Thread writer = new Thread(() -> {
                    try (HttpConnection http = new HttpConnection(port, 30_000)) {
                        while (true) {
                            int k = random.nextInt(keysPerThread);
                            KeyState s = keys[thread][k];
                            boolean delete = random.nextInt(10) < 3;
                            byte[] value = delete ? null : new byte[random.nextInt(4097)];
                            if (value != null) {
                                random.nextBytes(value);
                            }
                            s.pendingValue = value;
                            s.pending = true;
                            HttpConnection.Response r = http.exchange(delete ? "DELETE" : "PUT",
                                    "/v0/entity?id=" + key(thread, k), value);
                            if (r.status() != (delete ? 202 : 201)) {
                                errors.add(key(thread, k) + ": answered " + r.status());
                                return;
                            }
                            s.acked = value;
                            s.pending = false;
                            acknowledged.incrementAndGet();
                        }
                    } catch (IOException e) {
                        if (killed.get() == 0) {
                            errors.add("writer " + thread + " failed before the kill: " + e);
                        }
                    }
                }, "writer-" + t);
                writer.start();
                writers.add(writer);
            }
            Thread.sleep(1_500 + 500L * round);
            killed.set(1);
            Docker.docker("kill", "-s", "KILL", name).ok();
            for (Thread writer : writers) {
                writer.join(30_000);
            }
            assertTrue(errors.isEmpty(), String.join("\n", errors));
            assertEquals("137", Docker.inspect(name, "{{.State.ExitCode}}"), "SIGKILL, not a clean exit");

            Docker.docker("start", name).ok();
            Docker.awaitHealthy(name, HEALTHY_WITHIN);
            List<String> wrong = new ArrayList<>();
            int inFlight = 0;
            try (HttpConnection http = new HttpConnection(port, 30_000)) {
                for (int t = 0; t < threads; t++) {
                    for (int k = 0; k < keysPerThread; k++) {
                        KeyState s = keys[t][k];
                        HttpConnection.Response r = http.exchange("GET", "/v0/entity?id=" + key(t, k), null);
                        byte[] seen = r.status() == 200 ? r.body() : null;
                        if (r.status() != 200 && r.status() != 404) {
                            wrong.add(key(t, k) + ": GET answered " + r.status());
                        } else if (!Arrays.equals(seen, s.acked)
                                && !(s.pending && Arrays.equals(seen, s.pendingValue))) {
                            wrong.add(key(t, k) + ": acknowledged " + describe(s.acked) + " but read " + describe(seen));
                        }
                        inFlight += s.pending ? 1 : 0;
                        // What survived the restart is the acknowledged state from now on.
                        s.acked = seen;
                        s.pending = false;
                    }
                }
            }
            assertTrue(wrong.isEmpty(), "round " + round + ": " + wrong.size() + " keys wrong after docker kill:\n"
                    + String.join("\n", wrong.subList(0, Math.min(20, wrong.size()))));
            System.out.printf("ImageContainerIT: docker kill -s KILL round %d: %d writes acknowledged so far, %d in "
                    + "flight at the kill; every acknowledged one read back after docker start%n", round,
                    acknowledged.get(), inFlight);
        }
        assertTrue(acknowledged.get() > 200, "the load acknowledged too little to prove anything");
    }

    private static String key(int thread, int k) {
        return "t" + thread + "-k" + k;
    }

    private static String describe(byte[] value) {
        return value == null ? "<absent>" : value.length + " bytes";
    }

    @Test
    void staysUnderItsMemoryLimitAtSaturation() throws Exception {
        start();
        Docker.awaitHealthy(name, HEALTHY_WITHIN);
        // --memtables auto reads the container's limit, not the host's RAM: four (a sixteenth of 1 GiB is two), the
        // count this limit was sized with; eight, what a host of 4 GiB or more gets, would be 128 MiB more. And
        // --write-buffer auto keeps them at 32 MiB here: 64 MiB only where eight of them fit in a sixteenth (8 GiB).
        assertTrue(Docker.logs(name).contains("memtables=4x32MiB"), Docker.logs(name));
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger busy = new AtomicInteger();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<Thread> load = new ArrayList<>();
        // Writers of incompressible 256 KiB - 1 MiB values (memtables, write buffers, Netty's buffers), readers of
        // what was written (block cache), and a range scanner: every pool of off-heap memory at once.
        for (int t = 0; t < 12; t++) {
            int thread = t;
            load.add(new Thread(() -> {
                Random random = new Random(thread);
                try (HttpConnection http = new HttpConnection(port, 30_000)) {
                    for (int i = 0; System.nanoTime() < until; i++) {
                        HttpConnection.Response r;
                        if (thread < 8) {
                            byte[] value = new byte[(256 << 10) + random.nextInt(768 << 10)];
                            random.nextBytes(value);
                            r = http.exchange("PUT", "/v0/entity?id=m" + thread + "-" + (i % 400), value);
                        } else if (thread < 11) {
                            r = http.exchange("GET", "/v0/entity?id=m" + random.nextInt(8) + "-"
                                    + random.nextInt(400), null);
                        } else {
                            // Ranges answer chunked and can reach gigabytes here (every value the writers put):
                            // java.net.http streams them into a count, never into one String.
                            long bytes = drainRange("m" + random.nextInt(8), "m9", until);
                            r = new HttpConnection.Response(200, Long.toString(bytes).getBytes(UTF_8), false);
                        }
                        if (r.status() == 503) {
                            busy.incrementAndGet();
                        } else if (r.status() >= 500) {
                            errors.add("answered " + r.status() + " " + new String(r.body(), UTF_8).strip());
                            return;
                        } else {
                            ok.incrementAndGet();
                        }
                    }
                } catch (IOException e) {
                    errors.add("load connection failed: " + e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (AssertionError e) {
                    errors.add("range: " + e.getMessage());
                }
            }, "load-" + t));
        }
        load.forEach(Thread::start);
        long peakRss = 0;
        while (System.nanoTime() < until) {
            peakRss = Math.max(peakRss, memoryStat("total_rss", "anon"));
            Thread.sleep(1_000);
        }
        for (Thread t : load) {
            t.join(60_000);
        }
        Path cgroup = memoryCgroup();
        long peakUsage = Long.parseLong(read(cgroup, "memory.max_usage_in_bytes", "memory.peak"));
        String oomKills = read(cgroup, "memory.oom_control", "memory.events");
        System.out.printf("ImageContainerIT: at saturation %d requests served, %d answered 503; peak RSS seen %d MiB, "
                        + "peak cgroup usage (page cache included) %d MiB of a %d MiB limit%n", ok.get(), busy.get(),
                peakRss >> 20, peakUsage >> 20, MEMORY_LIMIT >> 20);
        assertTrue(errors.isEmpty(), String.join("\n", errors));
        assertTrue(ok.get() > 100, "the load was served too little to prove anything: " + ok.get());
        assertEquals("true false 0", Docker.inspect(name, "{{.State.Running}} {{.State.OOMKilled}} {{.RestartCount}}"),
                Docker.logs(name));
        assertTrue(oomKills.lines().noneMatch(l -> l.matches("oom_kill [1-9]\\d*")), oomKills);
        assertTrue(peakRss > 0 && peakRss < MEMORY_LIMIT, "RSS " + peakRss);
        try (HttpConnection http = new HttpConnection(port, 10_000)) {
            assertEquals(200, http.exchange("GET", "/v0/status", null).status());
        }
    }

    /** The container's memory cgroup as the host sees it (v1 cgroupfs or systemd driver, or v2). */
    private Path memoryCgroup() throws Exception {
        String id = Docker.inspect(name, "{{.Id}}");
        for (String candidate : List.of("/sys/fs/cgroup/memory/docker/" + id,
                "/sys/fs/cgroup/memory/system.slice/docker-" + id + ".scope", "/sys/fs/cgroup/docker/" + id,
                "/sys/fs/cgroup/system.slice/docker-" + id + ".scope")) {
            if (Files.isDirectory(Path.of(candidate))) {
                return Path.of(candidate);
            }
        }
        throw new AssertionError("memory cgroup of " + id + " not found under /sys/fs/cgroup");
    }

    /** One field of the cgroup's memory.stat (the first of the names it has). */
    private long memoryStat(String... fields) throws Exception {
        for (String line : Files.readAllLines(memoryCgroup().resolve("memory.stat"))) {
            String[] parts = line.split(" ");
            if (Arrays.asList(fields).contains(parts[0])) {
                return Long.parseLong(parts[1]);
            }
        }
        throw new AssertionError("memory.stat has none of " + Arrays.toString(fields));
    }

    private static String read(Path cgroup, String... files) throws IOException {
        for (String file : files) {
            if (Files.exists(cgroup.resolve(file))) {
                return Files.readString(cgroup.resolve(file)).strip();
            }
        }
        throw new AssertionError(cgroup + " has none of " + Arrays.toString(files));
    }

    @Test
    void badConfigurationExitsAtOnceWithAOneLineReason() throws Exception {
        start("-e", "LARDER_WORKERS=-1");
        long started = System.nanoTime();
        int exit = Docker.awaitExit(name, Duration.ofSeconds(30));
        long millis = (System.nanoTime() - started) / 1_000_000;
        List<String> reason = ownLines(Docker.logs(name));
        System.out.printf("ImageContainerIT: LARDER_WORKERS=-1 exited %d after %d ms: %s%n", exit, millis, reason);
        assertEquals(2, exit);
        assertEquals(1, reason.size(), reason.toString());
        assertTrue(reason.get(0).contains("--workers: -1 (expected: >= 0)"), reason.get(0));
        assertExitedAtOnce(millis);
        Docker.removeQuietly(name);

        // A data directory the image's user cannot write (a bind mount owned by someone else, mode 0755).
        Path data = Files.createDirectories(dir.resolve("not-writable"));
        Files.setPosixFilePermissions(data, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        start("-v", data + ":/data");
        started = System.nanoTime();
        exit = Docker.awaitExit(name, Duration.ofSeconds(30));
        millis = (System.nanoTime() - started) / 1_000_000;
        reason = ownLines(Docker.logs(name));
        System.out.printf("ImageContainerIT: unwritable /data exited %d after %d ms: %s%n", exit, millis, reason);
        assertNotEquals(0, exit);
        assertEquals(1, reason.size(), reason.toString());
        assertTrue(reason.get(0).startsWith("larder: cannot open store: ") && reason.get(0).contains("/data"),
                reason.get(0));
        assertExitedAtOnce(millis);
    }

    /**
     * At once: the JVM's start-up and one check, no retrying and no serving in between. Idle, that is under 1.5 s
     * here; the bound leaves room for a starved CPU (a JVM at nice 19 on a busy two-core machine took 15 s), and
     * the container never got as far as healthy.
     */
    private void assertExitedAtOnce(long millis) throws Exception {
        assertTrue(millis < 30_000, "took " + millis + " ms");
        assertEquals("exited 0", Docker.inspect(name, "{{.State.Status}} {{.RestartCount}}"));
        assertNotEquals("healthy", Docker.inspect(name, "{{.State.Health.Status}}"), "it served before exiting");
    }

    /** The log lines the server wrote: the JVM's own notice of JDK_JAVA_OPTIONS is not one of them. */
    private static List<String> ownLines(String logs) {
        return logs.lines().filter(l -> !l.isBlank() && !l.startsWith("NOTE: Picked up JDK_JAVA_OPTIONS")).toList();
    }

    /** A range read (answered chunked, which HttpConnection does not read: java.net.http does). */
    /**
     * Reads a range's body as a stream, counting its bytes, until it ends or the deadline passes (then closes it
     * early, as a client that has seen enough does): the status is what counts, and memory stays flat.
     */
    private long drainRange(String start, String end, long deadline) throws IOException, InterruptedException {
        java.net.http.HttpResponse<java.io.InputStream> r = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port
                        + "/v0/entities?start=" + start + "&end=" + end)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofInputStream());
        long bytes = 0;
        try (java.io.InputStream body = r.body()) {
            assertEquals(200, r.statusCode(), "range " + start + ".." + end);
            byte[] buffer = new byte[64 << 10];
            for (int n; System.nanoTime() < deadline && (n = body.read(buffer)) >= 0; ) {
                bytes += n;
            }
        }
        return bytes;
    }

    private String range(String start, String end) throws IOException, InterruptedException {
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port
                        + "/v0/entities?start=" + start + "&end=" + end)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString(UTF_8));
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }
}
