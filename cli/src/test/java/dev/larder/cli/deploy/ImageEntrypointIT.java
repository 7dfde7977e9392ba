package dev.larder.cli.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cli.LarderProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's runtime without the image: its ENTRYPOINT run with its ENV (the JVM flags included), /data and /tmp
 * replaced by temporary directories, and its HEALTHCHECK script run against it as Docker would.
 */
class ImageEntrypointIT {

    private static final Path HEALTHCHECK = Repo.file("deploy/docker/healthcheck.sh");
    /** What `docker stop` waits before SIGKILL unless told otherwise. */
    private static final Duration DOCKER_STOP_TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private final Dockerfile dockerfile = Dockerfile.parse(Repo.text("Dockerfile"));

    @Test
    void entrypointWithTheImagesEnvironmentServesIsHealthyAndStopsInTime() throws Exception {
        List<Dockerfile.Instruction> runtime = dockerfile.finalStage();
        Map<String, String> env = new HashMap<>(Dockerfile.env(runtime));
        // PATH and JAVA_HOME name the image's jlink'd runtime, which is not on this machine: "java" below is this JVM.
        env.remove("PATH");
        env.remove("JAVA_HOME");
        Path data = dir.resolve("data");
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        int port = freePort();
        env.put("LARDER_DATA_DIR", data.toString());
        env.put("LARDER_PORT", Integer.toString(port));
        String flags = env.get("JDK_JAVA_OPTIONS");
        assertTrue(flags.contains("-Djava.io.tmpdir=/tmp"), flags);
        env.put("JDK_JAVA_OPTIONS", flags.replace("-Djava.io.tmpdir=/tmp", "-Djava.io.tmpdir=" + tmp));

        List<String> command = new ArrayList<>(Dockerfile.execForm(Dockerfile.single(runtime, "ENTRYPOINT")));
        command.replaceAll(word -> word.equals("/app/larder.jar") ? LarderProcess.jar().toString() : word);
        try (LarderProcess larder = LarderProcess.exec(command, env)) {
            assertEquals(port, larder.port());
            assertTrue(larder.output().contains("Picked up JDK_JAVA_OPTIONS"), larder.output());
            // RocksDB unpacked its native library into java.io.tmpdir and loaded it from there: that is why the
            // image's tmpdir must be writable and executable.
            try (Stream<Path> files = Files.list(tmp)) {
                List<String> names = files.map(p -> p.getFileName().toString()).collect(Collectors.toList());
                assertTrue(names.stream().anyMatch(n -> n.startsWith("librocksdbjni") && n.endsWith(".so")),
                        "no RocksDB library extracted to " + tmp + ": " + names);
            }

            HttpClient http = HttpClient.newHttpClient();
            URI entity = URI.create(larder.baseUrl() + "/v0/entity?id=image");
            assertEquals(201, http.send(HttpRequest.newBuilder(entity).PUT(HttpRequest.BodyPublishers.ofString("ok"))
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode());
            assertEquals("ok", http.send(HttpRequest.newBuilder(entity).build(),
                    HttpResponse.BodyHandlers.ofString()).body());

            Result healthy = healthcheck(env);
            assertEquals(0, healthy.status, healthy.output);

            larder.terminate();
            assertEquals(0, larder.awaitExit(DOCKER_STOP_TIMEOUT), larder.output());
            Result down = healthcheck(env);
            assertEquals(1, down.status, down.output);
            assertTrue(down.output.contains("nothing accepts connections"), down.output);
        }
        try (Stream<Path> stored = Files.list(data)) {
            assertTrue(stored.anyMatch(p -> p.getFileName().toString().equals("CURRENT")),
                    "the store lives in LARDER_DATA_DIR");
        }
    }

    @Test
    void healthcheckFailsOnAnythingButA200() throws Exception {
        try (ServerSocket server = new ServerSocket(0)) {
            Thread answerer = new Thread(() -> answerOnce(server,
                    "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n"));
            answerer.start();
            Result unavailable = healthcheck(Map.of("LARDER_PORT", Integer.toString(server.getLocalPort())));
            answerer.join(5_000);
            assertEquals(1, unavailable.status, unavailable.output);
            assertTrue(unavailable.output.contains("HTTP/1.1 503 Service Unavailable"), unavailable.output);
        }
        // Accepts (the backlog does) but never answers: fails on its own read timeout (5 s), before Docker's 10 s.
        try (ServerSocket silent = new ServerSocket(0)) {
            long started = System.nanoTime();
            Result hung = healthcheck(Map.of("LARDER_PORT", Integer.toString(silent.getLocalPort())));
            assertEquals(1, hung.status, hung.output);
            assertTrue(hung.output.contains("no answer"), hung.output);
            assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(Duration.ofSeconds(10)) < 0);
        }
    }

    @Test
    void healthcheckAsksLoopbackWhenTheServerListensOnAllInterfaces() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Thread answerer = new Thread(() -> answerOnce(server, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"));
            answerer.start();
            Result ok = healthcheck(Map.of("LARDER_HOST", "0.0.0.0",
                    "LARDER_PORT", Integer.toString(server.getLocalPort())));
            answerer.join(5_000);
            assertEquals(0, ok.status, ok.output);
        }
    }

    @Test
    void entrypointWithTlsFilesFromTheEnvironmentServesHttpsAndIsHealthy() throws Exception {
        List<Dockerfile.Instruction> runtime = dockerfile.finalStage();
        Map<String, String> env = new HashMap<>(Dockerfile.env(runtime));
        env.remove("PATH");
        env.remove("JAVA_HOME");
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        env.put("JDK_JAVA_OPTIONS", env.get("JDK_JAVA_OPTIONS").replace("-Djava.io.tmpdir=/tmp",
                "-Djava.io.tmpdir=" + tmp));
        // As `-v secrets:/run/secrets:ro -e LARDER_TLS_CERT=... -e LARDER_AUTH_TOKEN_FILE=...` would give it.
        dev.larder.server.security.TestPki pki = dev.larder.server.security.TestPki.create(dir.resolve("secrets"),
                "image");
        dev.larder.server.security.TestPki.Issued cert = pki.server("cert");
        Path tokens = Files.writeString(dir.resolve("secrets/tokens"), "image-token-0123456789abcdef\n");
        env.put("LARDER_DATA_DIR", dir.resolve("data").toString());
        env.put("LARDER_PORT", Integer.toString(freePort()));
        env.put("LARDER_WARMUP_REQUESTS", Integer.toString(LarderProcess.SHORT_WARMUP_REQUESTS));
        env.put("LARDER_TLS_CERT", cert.cert().toString());
        env.put("LARDER_TLS_KEY", cert.key().toString());
        env.put("LARDER_AUTH_TOKEN_FILE", tokens.toString());
        List<String> command = new ArrayList<>(Dockerfile.execForm(Dockerfile.single(runtime, "ENTRYPOINT")));
        command.replaceAll(word -> word.equals("/app/larder.jar") ? LarderProcess.jar().toString() : word);
        try (LarderProcess larder = LarderProcess.exec(command, env)) {
            assertTrue(larder.output().contains("listening on https://"), larder.output());
            assertFalse(larder.output().contains("SECURITY WARNING"), "a token is asked for: " + larder.output());
            Result healthy = healthcheck(env);
            assertEquals(0, healthy.status, healthy.output);
            assertTrue(healthy.output.contains("accepts connections (TLS"), healthy.output);
            larder.terminate();
            assertEquals(0, larder.awaitExit(DOCKER_STOP_TIMEOUT), larder.output());
            Result down = healthcheck(env);
            assertEquals(1, down.status, down.output);
        }
    }

    /** Runs the script as Docker's exec-form HEALTHCHECK does: directly (its shebang), in the container's env. */
    private static Result healthcheck(Map<String, String> env) throws IOException, InterruptedException {
        assertTrue(Files.isExecutable(HEALTHCHECK), HEALTHCHECK + " must be executable");
        ProcessBuilder builder = new ProcessBuilder(HEALTHCHECK.toString()).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.startsWith("LARDER_"));
        builder.environment().putAll(env);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("health check hung");
        }
        return new Result(process.exitValue(), output);
    }

    private static void answerOnce(ServerSocket server, String response) {
        try (Socket socket = server.accept()) {
            InputStream in = socket.getInputStream();
            StringBuilder request = new StringBuilder();
            while (request.indexOf("\r\n\r\n") < 0) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("request ended early: " + request);
                }
                request.append((char) b);
            }
            if (!request.toString().startsWith("GET /v0/status HTTP/1.")) {
                throw new IOException("unexpected request: " + request);
            }
            OutputStream out = socket.getOutputStream();
            out.write(response.getBytes(StandardCharsets.US_ASCII));
            out.flush();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private record Result(int status, String output) {
    }
}
