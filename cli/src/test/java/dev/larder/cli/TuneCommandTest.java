package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code larder tune}'s flags in-process: help, and bad input refused with exit 2 before any server starts. */
class TuneCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cmd = Larder.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        return cmd.execute(args);
    }

    @Test
    void helpListsTheFlags() {
        assertEquals(0, run("tune", "--help"));
        for (String flag : new String[] {"--slo", "--workload", "--budget", "--data-dir", "--json", "--report",
            "--dimensions"}) {
            assertTrue(out.toString().contains(flag), flag + " in " + out);
        }
        assertFalse(err.toString().contains("WARN"), err.toString());
    }

    @Test
    void anSloItCannotParseExitsTwo() {
        assertEquals(2, run("tune", "--slo", "p99<10ms", "--data-dir", dir.toString()));
        assertTrue(err.toString().contains("--slo: 'p99<10ms' cannot be parsed"), err.toString());
        assertEquals(2, run("tune", "--slo", "p99<=10", "--data-dir", dir.toString()));
        assertTrue(err.toString().contains("--slo: 'p99<=10' cannot be parsed"), err.toString());
    }

    @Test
    void aBudgetTooSmallForOneCandidateExitsTwoAndStartsNothing() throws Exception {
        assertEquals(2, run("tune", "--budget", "20s", "--data-dir", dir.toString()));
        assertTrue(err.toString().contains("--budget: budget 20s is too small for one candidate besides the "
                + "default (at least "), err.toString());
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "no server was started");
        }
    }

    @Test
    void otherBadInputExitsTwoNamingTheFlag() {
        assertEquals(2, run("tune", "--workload", "scan"));
        assertTrue(err.toString().contains("--workload: 'scan' (expected: get, put or mix)"), err.toString());
        assertEquals(2, run("tune", "--dimensions", "threads"));
        assertTrue(err.toString().contains("--dimensions: 'threads'"), err.toString());
        assertEquals(2, run("tune", "--repeats", "0"));
        assertTrue(err.toString().contains("--repeats: 0 (expected: 1..10)"), err.toString());
        assertEquals(2, run("tune", "--budget", "0s"));
        assertTrue(err.toString().contains("--budget: PT0S (expected: > 0)"), err.toString());
    }
}
