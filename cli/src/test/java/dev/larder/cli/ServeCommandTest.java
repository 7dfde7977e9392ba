package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.CoalesceWait;
import dev.larder.server.config.ForegroundPolicy;
import dev.larder.server.config.MissReads;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.config.TransportKind;
import java.io.PrintWriter;
import java.io.StringWriter;
import dev.larder.server.security.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import dev.larder.storage.BlockCacheType;
import dev.larder.storage.StoreOptions;
import dev.larder.storage.TableWarming;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
                "--queue-size", "--rejection", "--max-queue-delay", "--max-value-size", "--block-cache=",
                "--block-cache-type", "--block-size", "--row-cache", "--write-buffer", "--memtables", "--sync",
                "--background-priority", "--foreground-slice", "--foreground-policy", "--io-coalesce", "--io-coalesce-wait",
                "--reschedule-interval", "--reschedule-nice", "--miss-reads",
                "--warm-new-tables", "--warmup-requests", "--jit-nice",
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
                "--port", "9999", "--io-threads", "3", "--foreground-slice", "4ms", "--io-coalesce", "200us",
                "--reschedule-interval", "1ms", "--reschedule-nice", "5", "--miss-reads", "workers");
        assertEquals(0, options.workers());
        assertTrue(options.synchronous());
        assertEquals(256, options.queueSize());
        assertEquals(RejectionMode.DISCARD_OLDEST, options.rejection());
        assertEquals(Duration.ofMillis(50), options.maxQueueDelay());
        assertEquals(TransportKind.NIO, options.transport());
        assertEquals(1 << 20, options.maxValueSize());
        assertEquals(9999, options.port());
        assertEquals(3, options.ioThreads());
        assertEquals(Duration.ofMillis(4), options.foregroundSlice());
        assertEquals(Duration.ofNanos(200_000), options.ioCoalesce());
        assertEquals(CoalesceWait.SPIN, parse("serve", "--io-coalesce", "200us", "--io-coalesce-wait", "spin")
                .ioCoalesceWait());
        assertEquals(CoalesceWait.PARK, parse("serve", "--io-coalesce-wait", "park").ioCoalesceWait());
        assertEquals(Duration.ofMillis(1), options.rescheduleInterval());
        assertEquals(5, options.rescheduleNice());
        assertEquals(MissReads.WORKERS, options.missReads());
        assertEquals(MissReads.LOOP, parse("serve", "--miss-reads", "loop").missReads());
        assertEquals(Duration.ZERO, parse("serve", "--reschedule-interval", "off").rescheduleInterval());
        assertEquals(ForegroundPolicy.FAIR, options.foregroundPolicy());
        assertEquals(ForegroundPolicy.FIFO, parse("serve", "--foreground-policy", "fifo").foregroundPolicy());
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
        assertEquals(Duration.ZERO, options.foregroundSlice(), "the kernel's slice");
        assertEquals(Duration.ZERO, options.ioCoalesce(), "the loops block at once");
        assertEquals(ServerOptions.DEFAULT_RESCHEDULE_INTERVAL, options.rescheduleInterval());
        assertEquals(ServerOptions.DEFAULT_RESCHEDULE_NICE, options.rescheduleNice());
        assertEquals(MissReads.AUTO, options.missReads(), "on the loop where the workers have no CPU of their own");
        assertEquals(64, options.inlineBatch(), "quick calls run on the loop when the worker is idle");
        assertEquals(0, parse("serve", "--inline-batch", "0").inlineBatch(), "every call handed over");
        assertEquals(8080, options.port());
        assertEquals("127.0.0.1", options.host());
    }

    @Test
    void theBlockCacheIsAShareOfTheMemoryLimitUnlessASizeIsGiven() {
        CommandLine.ParseResult defaults = Larder.commandLine().parseArgs("serve");
        ServeCommand serve = (ServeCommand) defaults.subcommand().commandSpec().userObject();
        assertEquals(MemoryShareConverter.memoryLimit() / 4, serve.storeOptions().blockCacheBytes());
        CommandLine.ParseResult sized = Larder.commandLine().parseArgs("serve", "--block-cache", "96MiB",
                "--row-cache", "1%");
        ServeCommand fixed = (ServeCommand) sized.subcommand().commandSpec().userObject();
        assertEquals(96L << 20, fixed.storeOptions().blockCacheBytes());
        assertEquals(MemoryShareConverter.memoryLimit() / 100, fixed.storeOptions().rowCacheBytes());
        Run tooMuch = execute("serve", "--block-cache", "150%");
        assertEquals(2, tooMuch.status());
        assertTrue(tooMuch.err().contains("--block-cache") && tooMuch.err().contains("0% to 100%"), tooMuch.err());
    }

    @Test
    void newTablesAreReadBackByDefaultAndTheOldBooleanValuesStillMeanOnAndOff() {
        assertEquals(TableWarming.READ_BACK, warmingOf());
        assertEquals(TableWarming.READ_BACK, warmingOf("--warm-new-tables"));
        assertEquals(TableWarming.READ_BACK, warmingOf("--warm-new-tables", "true"));
        assertEquals(TableWarming.AS_WRITTEN, warmingOf("--warm-new-tables", "as-written"));
        assertEquals(TableWarming.OFF, warmingOf("--warm-new-tables", "off"));
        assertEquals(TableWarming.OFF, warmingOf("--warm-new-tables", "false"));
        Run bad = execute("serve", "--warm-new-tables", "sometimes");
        assertEquals(2, bad.status());
        assertTrue(bad.err().contains("expected one of read-back, as-written, off but was 'sometimes'"), bad.err());
    }

    private static TableWarming warmingOf(String... flags) {
        String[] args = new String[flags.length + 1];
        args[0] = "serve";
        System.arraycopy(flags, 0, args, 1, flags.length);
        ServeCommand serve = (ServeCommand) Larder.commandLine().parseArgs(args).subcommand().commandSpec()
                .userObject();
        return serve.storeOptions().tableWarming();
    }

    @Test
    void memtablesAndTheirSizeReachTheStore() {
        ServeCommand defaults = (ServeCommand) Larder.commandLine().parseArgs("serve").subcommand().commandSpec()
                .userObject();
        assertEquals(MemtableCount.AUTO, defaults.memtables);
        assertEquals(MemtableSize.AUTO, defaults.writeBuffer);
        long autoBytes = MemtableSize.AUTO.resolve(MemoryShareConverter.memoryLimit());
        assertEquals(autoBytes, defaults.storeOptions().writeBufferBytes());
        assertEquals(MemtableCount.AUTO.resolve(MemoryShareConverter.memoryLimit(), autoBytes),
                defaults.storeOptions().memtables());
        ServeCommand two = (ServeCommand) Larder.commandLine().parseArgs("serve", "--memtables", "2",
                "--write-buffer", "64MiB").subcommand().commandSpec().userObject();
        assertEquals(2, two.storeOptions().memtables());
        assertEquals(64L << 20, two.storeOptions().writeBufferBytes());
        assertEquals(StoreOptions.DEFAULT_BLOCK_SIZE_BYTES, defaults.storeOptions().blockSizeBytes());
        ServeCommand bigBlocks = (ServeCommand) Larder.commandLine().parseArgs("serve", "--block-size", "16KiB")
                .subcommand().commandSpec().userObject();
        assertEquals(16L << 10, bigBlocks.storeOptions().blockSizeBytes());
    }

    @Test
    void blockCacheTypeReachesTheStore() {
        ServeCommand defaults = (ServeCommand) Larder.commandLine().parseArgs("serve").subcommand().commandSpec()
                .userObject();
        assertEquals(BlockCacheType.HYPER_CLOCK, defaults.storeOptions().blockCacheType());
        ServeCommand lru = (ServeCommand) Larder.commandLine().parseArgs("serve", "--block-cache-type", "lru")
                .subcommand().commandSpec().userObject();
        assertEquals(BlockCacheType.LRU, lru.storeOptions().blockCacheType());
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
        Run noBuffer = execute("serve", "--write-buffer", "large");
        assertEquals(2, noBuffer.status());
        assertTrue(noBuffer.err().contains("--write-buffer") && noBuffer.err().contains("expected auto"),
                noBuffer.err());
        Run tinyBlocks = execute("serve", "--block-size", "512");
        assertEquals(2, tinyBlocks.status());
        assertTrue(tinyBlocks.err().contains("--block-size: 512 (expected: 1024 to 1048576 bytes)"), tinyBlocks.err());
        Run oneMemtable = execute("serve", "--memtables", "1");
        assertEquals(2, oneMemtable.status());
        assertTrue(oneMemtable.err().contains("--memtables: 1 (expected: >= 2)"), oneMemtable.err());
        Run noMemtables = execute("serve", "--memtables", "none");
        assertEquals(2, noMemtables.status());
        assertTrue(noMemtables.err().contains("--memtables") && noMemtables.err().contains("expected auto"),
                noMemtables.err());
        Run negativeWarmup = execute("serve", "--warmup-requests", "-1");
        assertEquals(2, negativeWarmup.status());
        assertTrue(negativeWarmup.err().contains("--warmup-requests: -1 (expected: >= 0)"), negativeWarmup.err());
        Run badCache = execute("serve", "--block-cache-type", "clock");
        assertEquals(2, badCache.status());
        assertTrue(badCache.err().contains("--block-cache-type") && badCache.err().contains("hyper-clock, lru"),
                badCache.err());
        Run badPriority = execute("serve", "--background-priority", "idle");
        assertEquals(2, badPriority.status());
        assertTrue(badPriority.err().contains("--background-priority"), badPriority.err());
        Run clampedSlice = execute("serve", "--foreground-slice", "50us");
        assertEquals(2, clampedSlice.status());
        assertTrue(clampedSlice.err().contains("foreground-slice"), clampedSlice.err());
        Run longCoalesce = execute("serve", "--io-coalesce", "20ms");
        assertEquals(2, longCoalesce.status());
        assertTrue(longCoalesce.err().contains("io-coalesce") && longCoalesce.err().contains("10us to 5ms"),
                longCoalesce.err());
        Run badWait = execute("serve", "--io-coalesce-wait", "yield");
        assertEquals(2, badWait.status());
        assertTrue(badWait.err().contains("--io-coalesce-wait") && badWait.err().contains("park, spin"),
                badWait.err());
        Run spinNoWindow = execute("serve", "--io-coalesce-wait", "spin");
        assertEquals(2, spinNoWindow.status());
        assertTrue(spinNoWindow.err().contains("io-coalesce-wait")
                && spinNoWindow.err().contains("--io-coalesce 200us"), spinNoWindow.err());
        Run tickLong = execute("serve", "--reschedule-interval", "5ms");
        assertEquals(2, tickLong.status());
        assertTrue(tickLong.err().contains("reschedule-interval") && tickLong.err().contains("100us to 4ms"),
                tickLong.err());
        Run badMissReads = execute("serve", "--miss-reads", "disk");
        assertEquals(2, badMissReads.status());
        assertTrue(badMissReads.err().contains("--miss-reads") && badMissReads.err().contains("auto, loop, workers"),
                badMissReads.err());
        Run tooNice = execute("serve", "--reschedule-nice", "20");
        assertEquals(2, tooNice.status());
        assertTrue(tooNice.err().contains("reschedule-nice") && tooNice.err().contains("0..19"), tooNice.err());
        Run jitTooNice = execute("serve", "--jit-nice", "20");
        assertEquals(2, jitTooNice.status());
        assertTrue(jitTooNice.err().contains("--jit-nice: 20") && jitTooNice.err().contains("0..19"),
                jitTooNice.err());
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

    @Test
    void badSecurityFilesExit2WithOneLineBeforeTheStoreIsOpened(@TempDir Path dir) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"), "cli");
        TestPki.Issued server = pki.server("server");
        TestPki.Issued other = pki.server("other");
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "-----BEGIN CERTIFICATE-----\nxx\n");
        Path data = dir.resolve("data");
        String[][] cases = {
                {"--tls-cert", garbage.toString(), "--tls-key", server.key().toString()},
                {"--tls-cert", server.cert().toString(), "--tls-key", other.key().toString()},
                {"--tls-cert", server.cert().toString()},
                {"--tls-client-ca", pki.caFile().toString()},
                {"--auth-token-file", dir.resolve("no-such-file").toString()},
                {"--admin-token-file", garbage.toString()},
                {"--reload-interval", "off"},
        };
        String[] expected = {"not a PEM certificate and key", "does the key belong to the certificate",
                "--tls-cert: given without --tls-key", "--tls-client-ca: given without --tls-cert",
                "--auth-token-file: " + dir.resolve("no-such-file") + ": cannot read", "--admin-token-file:",
                "--reload-interval"};
        for (int i = 0; i < cases.length; i++) {
            String[] args = new String[cases[i].length + 5];
            args[0] = "serve";
            args[1] = "--data-dir";
            args[2] = data.toString();
            args[3] = "--warmup-requests";
            args[4] = "0";
            System.arraycopy(cases[i], 0, args, 5, cases[i].length);
            Run run = execute(args);
            assertEquals(2, run.status(), String.join(" ", cases[i]) + " -> " + run.err());
            assertEquals(1, run.err().strip().lines().count(), "one line: " + run.err());
            assertTrue(run.err().contains(expected[i]), expected[i] + " in " + run.err());
        }
        assertTrue(Files.notExists(data), "no store was created for a bad flag");
    }

    @Test
    void helpDocumentsTheSecurityFlags() {
        String text = execute("serve", "--help").out().replaceAll("\\s+", " ");
        for (String flag : new String[] {"--admin-host", "--tls-cert", "--tls-key", "--tls-client-ca",
                "--auth-token-file", "--admin-token-file", "--profiling", "--insecure-bind-ok", "--reload-interval",
                "SIGHUP"}) {
            assertTrue(text.contains(flag), flag);
        }
    }
}
