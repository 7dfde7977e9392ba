package dev.larder.cli.powercut;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code cli/src/test/python/powercutfs.py} mounted over a backing directory: a FUSE passthrough whose backing
 * directory holds, at every moment, only what was fsynced (file data) or directory-fsynced (entries). {@link #cut()}
 * is the power cut: unsynced data and entries are dropped and the file system is unmounted. Whoever uses the mount
 * must be dead first: kill the server, wait for it, then cut.
 */
public final class PowerCutFs implements AutoCloseable {

    /** The interpreter Debian's python3-pyfuse3 is installed for (a pyenv python3 first on PATH would lack it). */
    static final String PYTHON = "/usr/bin/python3";

    private final Process process;
    private final Path mountpoint;
    private final Path log;

    private PowerCutFs(Process process, Path mountpoint, Path log) {
        this.process = process;
        this.mountpoint = mountpoint;
        this.log = log;
    }

    /** What a cut dropped: files whose data was not synced, and entries ({@code +name}/{@code -name}) not synced. */
    public record Dropped(List<String> dirtyFiles, long dirtyBytes, List<String> unsyncedEntries) {

        /**
         * Whether the cut caught a flush or compaction: a table file (.sst) with unsynced data or an unsynced entry
         * (being written, or created, renamed or deleted), or more than one log with unsynced data (a memtable was
         * switched, and its log is synced only when its flush starts).
         */
        public boolean duringFlushOrCompaction() {
            return dirtyFiles.stream().anyMatch(f -> f.endsWith(".sst"))
                    || unsyncedEntries.stream().anyMatch(e -> e.endsWith(".sst"))
                    || dirtyFiles.stream().filter(f -> f.endsWith(".log")).count() > 1;
        }
    }

    /** Mounts the file system at {@code mountpoint} over {@code backing} (both existing directories). */
    public static PowerCutFs mount(Path backing, Path mountpoint) throws IOException, InterruptedException {
        Fuse.require();
        Path log = Files.createTempFile("powercutfs", ".log");
        Process process = new ProcessBuilder(PYTHON, script().toString(), backing.toString(), mountpoint.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PowerCutFs fs = new PowerCutFs(process, mountpoint.toAbsolutePath(), log);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (fs.output().contains("mounted ") && fs.mounted()) {
                return fs;
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(20);
        }
        fs.close();
        throw new IOException("powercutfs did not mount " + mountpoint + "; output:\n" + fs.output());
    }

    static Path script() {
        String repo = System.getProperty("larder.repo");
        if (repo == null) {
            throw new IllegalStateException("-Dlarder.repo is not set (run through Maven)");
        }
        return Path.of(repo, "cli", "src", "test", "python", "powercutfs.py").toAbsolutePath().normalize();
    }

    public Path mountpoint() {
        return mountpoint;
    }

    /** The power cut. Returns what was dropped; the backing directory then holds what a power cut would leave. */
    public Dropped cut() throws IOException, InterruptedException {
        signal("USR1");
        awaitExit();
        for (String line : output().split("\n")) {
            if (line.startsWith("cut ")) {
                JsonNode json = new ObjectMapper().readTree(line.substring(4));
                return new Dropped(strings(json.get("dirty_files")), json.get("dirty_bytes").asLong(),
                        strings(json.get("unsynced_entries")));
            }
        }
        throw new IOException("powercutfs reported no cut:\n" + output());
    }

    /** A clean unmount: everything is synced first, as an orderly shutdown of the machine would. */
    public void unmount() throws IOException, InterruptedException {
        signal("TERM");
        awaitExit();
        if (!output().contains("\nclean")) {
            throw new IOException("powercutfs did not report a clean unmount:\n" + output());
        }
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed; output:\n" + output());
        }
    }

    private void awaitExit() throws IOException, InterruptedException {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IOException("powercutfs did not exit within 60 s; output:\n" + output());
        }
        if (process.exitValue() != 0 || mounted()) {
            throw new IOException("powercutfs exited " + process.exitValue() + (mounted() ? ", still mounted" : "")
                    + "; output:\n" + output());
        }
    }

    /** Whether the kernel lists a powercutfs mount at our mountpoint. */
    boolean mounted() throws IOException {
        String target = " " + mountpoint + " ";
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
            if (line.contains(target) && line.contains("powercutfs")) {
                return true;
            }
        }
        return false;
    }

    public String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(output unreadable: " + e + ")";
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** After a failure: no process and no mount left behind, whatever state they were in. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        if (mounted()) {
            new ProcessBuilder("fusermount3", "-u", "-z", mountpoint.toString()).inheritIO().start().waitFor();
        }
        Files.deleteIfExists(log);
    }
}
