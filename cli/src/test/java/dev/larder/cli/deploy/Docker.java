package dev.larder.cli.deploy;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The docker and docker-compose command-line clients, run as processes: what the container tests drive. The client
 * is {@code $DOCKER} (default {@code docker}; .ci/run sets Debian's). Nothing here skips: with the container tests
 * switched on, a missing engine or image is a failure that says what to do.
 */
final class Docker {

    /** The images deploy/docker/build-images.sh builds from this checkout. */
    static final String LARDER_IMAGE = "larder:local";
    static final String PROMETHEUS_IMAGE = "larder-prometheus:local";
    static final String NGINX_IMAGE = "larder-nginx:local";

    /** A finished command: exit status and everything it printed (stdout, then stderr). */
    record Result(int status, String out, String err) {
        Result ok() {
            if (status != 0) {
                throw new AssertionError("exit " + status + ": " + err.strip() + "\n" + out.strip());
            }
            return this;
        }

        String text() {
            return out.strip();
        }
    }

    private Docker() {
    }

    static String client() {
        return System.getenv().getOrDefault("DOCKER", "docker");
    }

    /** Fails (does not skip) unless the engine answers and every image of this checkout is there. */
    static void requireEngineAndImages() throws Exception {
        Result info = run(Duration.ofSeconds(30), List.of(client(), "info", "-f", "{{.ServerVersion}}"), Map.of());
        if (info.status() != 0) {
            throw new AssertionError("no container engine answers `" + client() + " info` (" + info.err().strip()
                    + "): start dockerd (.ci/run shows how), or run without LARDER_CONTAINER_TESTS / -Pcontainers");
        }
        for (String image : List.of(LARDER_IMAGE, PROMETHEUS_IMAGE, NGINX_IMAGE)) {
            if (docker("image", "inspect", "-f", "{{.Id}}", image).status() != 0) {
                throw new AssertionError("image " + image + " is missing: deploy/docker/build-images.sh builds it "
                        + "(--offline without a registry)");
            }
        }
    }

    static Result docker(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(client()));
        command.addAll(List.of(args));
        return run(Duration.ofMinutes(3), command, Map.of());
    }

    /** {@code docker inspect -f format name}, trimmed; fails when the container does not exist. */
    static String inspect(String name, String format) throws IOException, InterruptedException {
        return docker("inspect", "-f", format, name).ok().text();
    }

    /** Waits until the container's health check says healthy; fails at once if it exits, or after {@code timeout}. */
    static Duration awaitHealthy(String name, Duration timeout) throws Exception {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        String state = "";
        while (System.nanoTime() < deadline) {
            state = inspect(name, "{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}");
            if (state.equals("running healthy")) {
                return Duration.ofNanos(System.nanoTime() - started);
            }
            if (!state.startsWith("running") && !state.startsWith("created")) {
                break;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(name + " not healthy within " + timeout + " (" + state + "); logs:\n" + logs(name));
    }

    /** Waits for the container to exit; returns its exit code. */
    static int awaitExit(String name, Duration timeout) throws Exception {
        Result wait = run(timeout, List.of(client(), "wait", name), Map.of());
        return Integer.parseInt(wait.ok().text());
    }

    static String logs(String name) throws IOException, InterruptedException {
        Result logs = docker("logs", name);
        return logs.out() + logs.err();
    }

    /** Removes containers (and their anonymous volumes) if they exist. */
    static void removeQuietly(String... names) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("rm", "-f", "-v"));
        command.addAll(List.of(names));
        docker(command.toArray(String[]::new));
    }

    /** Runs a command with a time limit; the output goes to files so a chatty command never blocks on a pipe. */
    static Result run(Duration timeout, List<String> command, Map<String, String> env)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("docker-out", ".txt");
        Path err = Files.createTempFile("docker-err", ".txt");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().putAll(env);
            Process process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout + ":\n"
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Free loopback ports, all distinct (every container shares the host's network). */
    static int[] freePorts(int count) throws IOException {
        ServerSocket[] sockets = new ServerSocket[count];
        int[] ports = new int[count];
        try {
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket(0);
                ports[i] = sockets[i].getLocalPort();
            }
        } finally {
            for (ServerSocket socket : sockets) {
                if (socket != null) {
                    socket.close();
                }
            }
        }
        return ports;
    }
}
