package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
            "--dimensions", "--hold"}) {
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

    @Test
    void aHoldThatIsNotADurationOrTooShortExitsTwo() {
        assertEquals(2, run("tune", "--hold", "soon", "--data-dir", dir.toString()));
        assertTrue(err.toString().contains("'soon' is not a duration"), err.toString());
        assertEquals(2, run("tune", "--hold", "500ms", "--data-dir", dir.toString()));
        assertTrue(err.toString().contains("--hold: PT0.5S (expected: 0s for none, or at least 1s)"), err.toString());
    }

    @Test
    void theMinimumBudgetKeepsTheDefaultsHolds() {
        long withoutHolds = minimum("--hold", "0s");
        long withHolds = minimum("--hold", "15s");
        assertTrue(withHolds - withoutHolds >= 3 * 15, "three 15 s holds: " + withoutHolds + "s, " + withHolds + "s");
    }

    /** The minimum a budget of 20 s is refused with. */
    private long minimum(String... args) {
        err.getBuffer().setLength(0);
        String[] all = new String[args.length + 5];
        System.arraycopy(new String[] {"tune", "--budget", "20s", "--data-dir", dir.toString()}, 0, all, 0, 5);
        System.arraycopy(args, 0, all, 5, args.length);
        assertEquals(2, run(all));
        Matcher m = Pattern.compile("at least (\\d+)s").matcher(err.toString());
        assertTrue(m.find(), err.toString());
        return Long.parseLong(m.group(1));
    }
}
