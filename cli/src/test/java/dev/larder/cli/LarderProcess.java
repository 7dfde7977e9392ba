package dev.larder.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code java -jar larder.jar ...} process for process-level tests: started on a free port (learned from
 * the startup line), stopped with SIGTERM or SIGKILL. The jar is the one {@code package} built
 * ({@code -Dlarder.jar}). Output goes to a file rather than a pipe, so nothing printed just before exit is lost.
 */
public final class LarderProcess implements AutoCloseable {

    /**
     * The warm-up tests start Larder with when the JIT is not what they prove: its path still runs every kind of
     * request, without the default's seconds of warming at every start. JitWarmupIT runs the default.
     */
    public static final int SHORT_WARMUP_REQUESTS = 2000;

    // The host may be an IPv6 literal ("0:0:0:0:0:0:0:0" for a wildcard bind): the port is after the last colon.
    private static final Pattern LISTENING = Pattern.compile("listening on https?://(\\S+):(\\d+)");
    private static final Pattern ADMIN = Pattern.compile("admin on https?://(\\S+):(\\d+)");

    private final Process process;
    private final Path log;
    private int port = -1;
    private int adminPort = -1;

    private LarderProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** The fat jar under test. */
    public static Path jar() {
        String jar = System.getProperty("larder.jar");
        if (jar == null) {
            throw new IllegalStateException("-Dlarder.jar is not set (run through Maven's verify phase)");
        }
        return Path.of(jar);
    }

    /**
     * Starts {@code serve --port 0 --data-dir dataDir args...} and waits until it listens. The admin listener is off
     * ({@code --admin-port 0}) unless {@code args} set {@code --admin-port}: its default port would collide between
     * tests.
     */
    public static LarderProcess serve(Path dataDir, String... args) throws IOException, InterruptedException {
        return serve(0, dataDir, args);
    }

    /**
     * Starts {@code serve --port port --data-dir dataDir args...} and waits until it listens: a fixed port for
     * restarting a node where a proxy expects it. The admin listener is off unless {@code args} set
     * {@code --admin-port}, as in {@link #serve(Path, String...)}.
     */
    public static LarderProcess serve(int port, Path dataDir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("serve", "--port", Integer.toString(port),
                "--data-dir", dataDir.toString()));
        if (!List.of(args).contains("--admin-port")) {
            command.addAll(List.of("--admin-port", "0"));
        }
        if (!List.of(args).contains("--warmup-requests")) {
            command.addAll(List.of("--warmup-requests", Integer.toString(SHORT_WARMUP_REQUESTS)));
        }
        command.addAll(List.of(args));
        LarderProcess larder = run(command.toArray(String[]::new));
        larder.awaitListening(Duration.ofSeconds(60));
        return larder;
    }

    /** Starts {@code java -jar larder.jar args...} without waiting for anything. */
    public static LarderProcess run(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx256m", "-jar", jar().toString()));
        command.addAll(List.of(args));
        return start(command, Map.of());
    }

    /**
     * Starts {@code command} as given (an image's entrypoint, say: {@code java} is resolved to this JVM's binary)
     * with {@code environment} added to this process's, and waits until it listens.
     */
    public static LarderProcess exec(List<String> command, Map<String, String> environment)
            throws IOException, InterruptedException {
        List<String> resolved = new ArrayList<>(command);
        if (resolved.get(0).equals("java")) {
            resolved.set(0, javaBinary());
        }
        LarderProcess larder = start(resolved, environment);
        larder.awaitListening(Duration.ofSeconds(60));
        return larder;
    }

    private static LarderProcess start(List<String> command, Map<String, String> environment) throws IOException {
        Path log = Files.createTempFile("larder-process", ".log");
        log.toFile().deleteOnExit();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        return new LarderProcess(builder.start(), log);
    }

    /** This JVM's own {@code java} launcher. */
    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private void awaitListening(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = LISTENING.matcher(output());
            if (m.find()) {
                port = Integer.parseInt(m.group(2));
                Matcher admin = ADMIN.matcher(output());
                if (admin.find()) {
                    adminPort = Integer.parseInt(admin.group(2));
                }
                return;
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(20);
        }
        process.destroyForcibly();
        throw new IOException("larder did not start listening; output:\n" + output());
    }

    public int port() {
        return port;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** The admin port from the startup line; -1 when the admin listener is off. */
    public int adminPort() {
        return adminPort;
    }

    public String adminUrl() {
        if (adminPort < 0) {
            throw new IllegalStateException("the admin listener is off (pass --admin-port)");
        }
        return "http://127.0.0.1:" + adminPort;
    }

    public long pid() {
        return process.pid();
    }

    /** SIGTERM: the orderly shutdown path. */
    public void terminate() {
        process.destroy();
    }

    /** SIGKILL: a crash. */
    public void kill() {
        process.destroyForcibly();
    }

    /** Waits for exit; returns the exit status, or fails when it takes longer than {@code timeout}. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("larder did not exit within " + timeout + "; output:\n" + output());
        }
        return process.exitValue();
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Everything the process printed so far (stdout and stderr). */
    public String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(output unreadable: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            // temp file; the JVM removes it on exit
        }
    }
}
