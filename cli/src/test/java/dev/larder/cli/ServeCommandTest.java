package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.config.TransportKind;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The serve command's flags, help text and error exits, in-process. */
class ServeCommandTest {

    private record Run(int status, String out, String err) { }

    private static Run execute(String... args) {
        CommandLine cli = Larder.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int status = cli.execute(args);
        return new Run(status, out.toString(), err.toString());
    }

    private static ServerOptions parse(String... args) {
        CommandLine cli = Larder.commandLine();
        CommandLine.ParseResult result = cli.parseArgs(args);
        ServeCommand serve = (ServeCommand) result.subcommand().commandSpec().userObject();
        return serve.serverOptions();
    }

    @Test
    void helpDocumentsEveryTuningFlagWithDefaults() {
        Run help = execute("serve", "--help");
        assertEquals(0, help.status());
        String text = help.out().replaceAll("\\s+", " ");
        for (String flag : new String[] {"--host", "--port", "--data-dir", "--io-threads", "--transport", "--workers",
                "--queue-size", "--rejection", "--max-queue-delay", "--max-value-size", "--block-cache", "--row-cache", "--write-buffer", "--sync",
                "--background-priority", "--warmup-requests",
                "--shutdown-timeout", "--read-timeout", "--idle-timeout", "--max-connections"}) {
            assertTrue(text.contains(flag), flag);
        }
        assertTrue(text.contains("PER WORKER"), "queue size is per worker");
        assertTrue(text.contains("Netty's minimum is 16"));
        assertTrue(text.contains("default: 128"));
        assertTrue(text.contains("LARDER_"), "environment variables are documented");
        assertTrue(text.contains("survives a crash of the process but not of the machine"));
    }

    @Test
    void flagsBuildTheServerOptions() {
        ServerOptions options = parse("serve", "--workers", "0", "--queue-size", "256", "--rejection",
                "discard-oldest", "--max-queue-delay", "50ms", "--transport", "nio", "--max-value-size", "1MiB",
                "--port", "9999", "--io-threads", "3");
        assertEquals(0, options.workers());
        assertTrue(options.synchronous());
        assertEquals(256, options.queueSize());
        assertEquals(RejectionMode.DISCARD_OLDEST, options.rejection());
        assertEquals(Duration.ofMillis(50), options.maxQueueDelay());
        assertEquals(TransportKind.NIO, options.transport());
        assertEquals(1 << 20, options.maxValueSize());
        assertEquals(9999, options.port());
        assertEquals(3, options.ioThreads());
    }

    @Test
    void defaultsFollowTheCores() {
        ServerOptions options = parse("serve");
        int cores = Runtime.getRuntime().availableProcessors();
        assertEquals(cores, options.ioThreads());
        assertEquals(2 * cores, options.workers());
        assertEquals(128, options.queueSize());
        assertEquals(RejectionMode.ABORT, options.rejection());
        assertEquals(Duration.ZERO, options.maxQueueDelay());
        assertEquals(8080, options.port());
        assertEquals("127.0.0.1", options.host());
    }

    @Test
    void badValuesExitTwoNamingTheFlag() {
        Run notANumber = execute("serve", "--workers", "lots");
        assertEquals(2, notANumber.status());
        assertTrue(notANumber.err().contains("--workers"), notANumber.err());
        Run badMode = execute("serve", "--rejection", "drop-everything");
        assertEquals(2, badMode.status());
        assertTrue(badMode.err().contains("--rejection"), badMode.err());
        Run badDuration = execute("serve", "--max-queue-delay", "soon");
        assertEquals(2, badDuration.status());
        assertTrue(badDuration.err().contains("--max-queue-delay"), badDuration.err());
        Run tooSmall = execute("serve", "--queue-size", "8");
        assertEquals(2, tooSmall.status());
        assertTrue(tooSmall.err().contains("queue-size: 8 (expected: >= 16)"), tooSmall.err());
        Run tinyBuffer = execute("serve", "--write-buffer", "4KiB");
        assertEquals(2, tinyBuffer.status());
        assertTrue(tinyBuffer.err().contains("--write-buffer: 4096 (expected: >= 65536)"), tinyBuffer.err());
        Run negativeWarmup = execute("serve", "--warmup-requests", "-1");
        assertEquals(2, negativeWarmup.status());
        assertTrue(negativeWarmup.err().contains("--warmup-requests: -1 (expected: >= 0)"), negativeWarmup.err());
        Run badPriority = execute("serve", "--background-priority", "idle");
        assertEquals(2, badPriority.status());
        assertTrue(badPriority.err().contains("--background-priority"), badPriority.err());
    }

    /** -1 is not a hidden "auto": unset means 2 x cores, and a bad value is one line on stderr, not the usage. */
    @Test
    void negativeWorkersAreRefusedInOneLine() {
        Run negative = execute("serve", "--workers", "-1");
        assertEquals(2, negative.status());
        assertEquals(1, negative.err().lines().count(), negative.err());
        assertTrue(negative.err().startsWith("larder serve: --workers: -1 (expected: >= 0)"), negative.err());
        assertEquals("", negative.out());
    }

    @Test
    void versionIsPrinted() {
        Run version = execute("--version");
        assertEquals(0, version.status());
        assertTrue(version.out().startsWith("larder "), version.out());
    }
}
