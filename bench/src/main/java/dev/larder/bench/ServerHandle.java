package dev.larder.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A target ready to be measured: its data URL, admin URL and the settings we could learn (the startup line, config
 * lines from {@code /metrics}). For a launched target it owns the server process and its temporary data directory,
 * and {@link #close()} stops the process with SIGTERM and deletes the directory.
 */
final class ServerHandle implements AutoCloseable {

    /** How long a server sent SIGTERM may take for its orderly shutdown (the store synced and closed). */
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private static final Pattern LISTENING = Pattern.compile("listening on (https?://[^\\s]+)");
    private static final Pattern STARTED = Pattern.compile("larder started: .*");
    private static final Pattern ADMIN = Pattern.compile("admin[^\\n]*?(https?://[^\\s/]+)");

    private final Target target;
    private final URI url;
    private final URI adminUrl;
    private final List<String> settings;
    private final Process process;
    private final Path dataDir;
    private final Path log;
    // A bench or tune stopped by a signal runs no finally block: without this the servers it started kept running,
    // pinned to the server's core, under every later measurement. Null for a server this bench did not start.
    private final Thread stopOnExit;

    private ServerHandle(Target target, URI url, URI adminUrl, List<String> settings, Process process, Path dataDir,
                         Path log, Thread stopOnExit) {
        this.target = target;
        this.url = url;
        this.adminUrl = adminUrl;
        this.settings = settings;
        this.process = process;
        this.dataDir = dataDir;
        this.log = log;
        this.stopOnExit = stopOnExit;
    }

    String label() {
        return target.label();
    }

    URI url() {
        return url;
    }

    URI adminUrl() {
        return adminUrl;
    }

    /** What we know of the server's configuration, one line each. */
    List<String> settings() {
        return settings;
    }

    /**
     * CPU time the launched server process has used so far (user + system), when the platform reports it; empty
     * for a server bench did not launch.
     */
    java.util.Optional<java.time.Duration> cpuTime() {
        return process == null ? java.util.Optional.empty() : process.toHandle().info().totalCpuDuration();
    }

    /** Prepares a target: starts it if bench launches it, then reads its settings. */
    static ServerHandle open(Target target, BenchOptions options) {
        return open(target, options, null);
    }

    /** As {@link #open(Target, BenchOptions)}, with a launched server's data directory under {@code dataRoot}. */
    static ServerHandle open(Target target, BenchOptions options, Path dataRoot) {
        if (!target.launched()) {
            URI admin = target.adminUrl() != null ? target.adminUrl()
                    : URI.create("http://" + target.url().getHost() + ":" + Target.DEFAULT_ADMIN_PORT);
            List<String> settings = new ArrayList<>();
            if (target.serverLog() != null) {
                startupLine(read(target.serverLog())).ifPresent(settings::add);
            }
            return new ServerHandle(target, target.url(), admin, withMetrics(settings, admin), null, null, null,
                    null);
        }
        return launch(target, options, dataRoot);
    }

    private static ServerHandle launch(Target target, BenchOptions options, Path dataRoot) {
        // Asked before anything is created: it runs a JVM of its own, the longest step before the server's, and a
        // signal meanwhile then leaves nothing behind.
        int adminPort = target.adminPortFlag();
        boolean ownAdminPort = adminPort < 0 && target.adminUrl() == null && supportsAdminPort(options);
        if (ownAdminPort) {
            // Give each launched server its own free admin port rather than the shared default, which some
            // other server on this machine may hold.
            adminPort = freePort();
        }
        Path dataDir;
        try {
            String prefix = "larder-bench-" + target.label().replaceAll("[^A-Za-z0-9_.-]", "_");
            dataDir = dataRoot == null ? Files.createTempDirectory(prefix)
                    : Files.createTempDirectory(Files.createDirectories(dataRoot), prefix);
        } catch (IOException e) {
            throw new BenchException("cannot create a data directory for '" + target.label() + "': " + e, e);
        }
        Path log;
        try {
            log = Files.createTempFile("larder-bench-server", ".log");
        } catch (IOException e) {
            deleteTree(dataDir);
            throw new BenchException("cannot create a log file for '" + target.label() + "': " + e, e);
        }
        // From here on a signal to this JVM removes the directory and the log, and stops the server once spawned,
        // even while it is still starting.
        Leftovers leftovers = new Leftovers(dataDir, log);
        Thread stopOnExit = new Thread(leftovers, "larder-bench-server-stop");
        try {
            Runtime.getRuntime().addShutdownHook(stopOnExit);
        } catch (IllegalStateException e) {
            leftovers.run();
            throw new BenchException("not starting '" + target.label() + "': this JVM is shutting down", e);
        }
        List<String> command = new ArrayList<>();
        if (options.serverCpus() != null) {
            command.addAll(List.of("taskset", "-c", options.serverCpus()));
        }
        command.addAll(options.serverCommand());
        command.addAll(List.of("serve", "--port", "0", "--data-dir", dataDir.toString()));
        if (ownAdminPort) {
            command.addAll(List.of("--admin-port", Integer.toString(adminPort)));
        }
        command.addAll(target.serveArgs());
        Process process;
        try {
            process = leftovers.spawn(new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()));
        } catch (IOException e) {
            removeHook(stopOnExit);
            leftovers.run();
            throw new BenchException("cannot start '" + target.label() + "' (" + String.join(" ", command) + "): "
                    + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        String output = "";
        while (System.nanoTime() < deadline) {
            output = read(log);
            Matcher m = LISTENING.matcher(output);
            if (m.find()) {
                URI url = URI.create(m.group(1));
                URI admin;
                if (target.adminUrl() != null) {
                    admin = target.adminUrl();
                } else if (adminPort > 0) {
                    admin = URI.create("http://" + url.getHost() + ":" + adminPort);
                } else {
                    Matcher a = ADMIN.matcher(output);
                    admin = a.find() ? URI.create(a.group(1))
                            : URI.create("http://" + url.getHost() + ":" + Target.DEFAULT_ADMIN_PORT);
                }
                List<String> settings = new ArrayList<>();
                settings.add("launched: larder serve " + String.join(" ", target.serveArgs())
                        + (options.serverCpus() != null ? " (taskset -c " + options.serverCpus() + ")" : ""));
                startupLine(output).ifPresent(settings::add);
                return new ServerHandle(target, url, admin, withMetrics(settings, admin), process, dataDir, log,
                        stopOnExit);
            }
            if (!process.isAlive()) {
                break;
            }
            Sleep.millis(50);
        }
        removeHook(stopOnExit);
        ChildProcesses.kill(process);
        deleteFiles(dataDir, log);
        throw new BenchException("server '" + target.label() + "' did not start (" + String.join(" ", command)
                + "); its output:\n" + output);
    }

    // Whether this larder build has an admin endpoint at all (older builds reject the flag).
    private static boolean supportsAdminPort(BenchOptions options) {
        List<String> command = new ArrayList<>(options.serverCommand());
        command.addAll(List.of("serve", "--help"));
        try {
            Path out = Files.createTempFile("larder-bench-help", ".txt");
            // A signal while the help runs skips the finally block below; the JVM's exit still deletes the file.
            out.toFile().deleteOnExit();
            try {
                Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return false;
                }
                return read(out).contains("--admin-port");
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int freePort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new BenchException("cannot find a free port for the admin endpoint: " + e.getMessage(), e);
        }
    }

    private static List<String> withMetrics(List<String> settings, URI admin) {
        new AdminClient(admin).metrics().ifPresent(m -> {
            for (String line : AdminClient.settingLines(m)) {
                settings.add("metrics (" + admin + "): " + line);
            }
        });
        return List.copyOf(settings);
    }

    static java.util.Optional<String> startupLine(String output) {
        String last = null;
        Matcher m = STARTED.matcher(output);
        while (m.find()) {
            last = m.group().strip();
        }
        return java.util.Optional.ofNullable(last);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() {
        if (process == null) {
            return;
        }
        removeHook(stopOnExit);
        stop(process, dataDir, log);
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook stops the server too, and stopping twice is harmless
        }
    }

    /** SIGTERM, up to 30 s for the orderly shutdown, then SIGKILL; its data directory and log deleted. */
    private static void stop(Process process, Path dataDir, Path log) {
        ChildProcesses.stop(process, STOP_GRACE);
        deleteFiles(dataDir, log);
    }

    private static void deleteFiles(Path dataDir, Path log) {
        deleteTree(dataDir);
        deleteQuietly(log);
    }

    /**
     * What one launch has made, for the shutdown hook that removes it: the data directory and the log from the start,
     * the server once spawned. Spawning and the hook exclude each other, so a server is never spawned after the hook
     * ran, when nothing would stop it.
     */
    static final class Leftovers implements Runnable {

        private final Path dataDir;
        private final Path log;
        private Process process;
        private boolean removed;

        Leftovers(Path dataDir, Path log) {
            this.dataDir = dataDir;
            this.log = log;
        }

        /** Starts the server, unless {@link #run()} has already removed what it needs. */
        synchronized Process spawn(ProcessBuilder builder) throws IOException {
            if (removed) {
                throw new IOException("stopping: the data directory is gone");
            }
            process = builder.start();
            return process;
        }

        /** Stops the server if one was spawned (as {@link #close()} does), and deletes the directory and the log. */
        @Override
        public void run() {
            Process spawned;
            synchronized (this) {
                removed = true;
                spawned = process;
            }
            if (spawned != null) {
                stop(spawned, dataDir, log);
            } else {
                deleteFiles(dataDir, log);
            }
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a temp file left behind is harmless
        }
    }

    private static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort
                }
            });
        } catch (IOException e) {
            // best effort
        }
    }
}
