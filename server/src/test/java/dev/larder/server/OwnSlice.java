package dev.larder.server;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The EEVDF slice and the nice value of the calling thread, as the kernel reports them in
 * {@code /proc/thread-self/sched} and {@code /proc/thread-self/stat}.
 */
final class OwnSlice {

    private static final Path OWN_SCHED = Path.of("/proc/thread-self/sched");
    private static final Path OWN_STAT = Path.of("/proc/thread-self/stat");

    private OwnSlice() {
    }

    /** The calling thread's slice in nanoseconds. */
    static long read() {
        try {
            for (String line : Files.readAllLines(OWN_SCHED)) {
                if (line.startsWith("se.slice")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no se.slice in " + OWN_SCHED);
    }

    /** The calling thread's nice value: field 19 of its stat line, counted after the parenthesised name. */
    static int nice() {
        return statField(19);
    }

    /** The calling thread's scheduling policy (0 SCHED_OTHER, 1 SCHED_FIFO): field 41 of its stat line. */
    static int policy() {
        return statField(41);
    }

    /** Field {@code n} (1-based, as proc(5) numbers them) of the calling thread's stat line. */
    private static int statField(int n) {
        try {
            String stat = Files.readString(OWN_STAT);
            String[] afterName = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return Integer.parseInt(afterName[n - 3]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Custom slices came with Linux 6.12; the kernel reports each thread's as se.slice. */
    static void assumeCustomSlices() throws IOException {
        String[] version = System.getProperty("os.version", "0.0").split("[.-]");
        boolean linux612 = System.getProperty("os.name", "").startsWith("Linux")
                && (Integer.parseInt(version[0]) > 6
                || Integer.parseInt(version[0]) == 6 && Integer.parseInt(version[1]) >= 12);
        assumeTrue(linux612 && Files.isReadable(OWN_SCHED)
                && Files.readString(OWN_SCHED).contains("se.slice"), "needs Linux 6.12+ with se.slice");
    }
}
