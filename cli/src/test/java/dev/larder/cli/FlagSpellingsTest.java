package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.CoalesceWait;
import dev.larder.server.config.ForegroundPolicy;
import dev.larder.server.config.LimitAlgorithm;
import dev.larder.server.config.MissReads;
import dev.larder.server.config.RejectionMode;
import dev.larder.server.config.TransportKind;
import dev.larder.storage.BlockCacheType;
import dev.larder.storage.TableWarming;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class FlagSpellingsTest {

    private enum Mode {
        CALLER_RUNS("caller-runs"),
        IO_URING("io_uring"),
        OFF("off");

        private final String flag;

        Mode(String flag) {
            this.flag = flag;
        }

        String flag() {
            return flag;
        }
    }

    private static Mode mode(String value) {
        return FlagSpellings.parse(Mode.class, Mode::flag, value);
    }

    @Test
    void readsTheFlagSpellingInAnyCaseAndTheJavaName() {
        assertEquals(Mode.CALLER_RUNS, mode("caller-runs"));
        assertEquals(Mode.CALLER_RUNS, mode("Caller-Runs"));
        assertEquals(Mode.CALLER_RUNS, mode("CALLER_RUNS"));
        assertEquals(Mode.IO_URING, mode("io_uring"));
        assertEquals(Mode.OFF, mode("Off"));
    }

    @Test
    void aWrongValueNamesEverySpellingInOrder() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> mode("callerruns"));
        assertEquals("expected one of caller-runs, io_uring, off but was 'callerruns'", e.getMessage());
    }

    /** Each mode-valued option of serve, through the real command line: its spellings, not picocli's enum names. */
    @Test
    void serveReadsEveryModeValuedOptionByItsSpelling() {
        assertEquals(TransportKind.IO_URING, serve(s -> s.transport, "--transport", "io_uring"));
        assertEquals(RejectionMode.CALLER_RUNS, serve(s -> s.rejection, "--rejection", "caller-runs"));
        assertEquals(RejectionMode.DISCARD_OLDEST, serve(s -> s.rejection, "--rejection", "DISCARD_OLDEST"));
        assertEquals(RejectionMode.ADAPTIVE, serve(s -> s.rejection, "--rejection", "adaptive"));
        assertEquals(LimitAlgorithm.AIMD, serve(s -> s.limitAlgorithm, "--limit-algorithm", "AIMD"));
        assertEquals(LimitAlgorithm.GRADIENT2, serve(s -> s.limitAlgorithm, "--limit-algorithm", "gradient2"));
        assertEquals(BlockCacheType.HYPER_CLOCK, serve(s -> s.blockCacheType, "--block-cache-type", "hyper-clock"));
        assertEquals(BlockCacheType.LRU, serve(s -> s.blockCacheType, "--block-cache-type", "LRU"));
        assertEquals(ForegroundPolicy.FIFO, serve(s -> s.foregroundPolicy, "--foreground-policy", "FIFO"));
        assertEquals(CoalesceWait.SPIN, serve(s -> s.ioCoalesceWait, "--io-coalesce-wait", "spin"));
        assertEquals(MissReads.LOOP, serve(s -> s.missReads, "--miss-reads", "LOOP"));
        assertEquals(TableWarming.AS_WRITTEN, serve(s -> s.tableWarming, "--warm-new-tables", "as-written"));
        assertEquals(TableWarming.READ_BACK, serve(s -> s.tableWarming, "--warm-new-tables", "true"));
        assertEquals(TableWarming.OFF, serve(s -> s.tableWarming, "--warm-new-tables", "FALSE"));
    }

    @Test
    void aWrongModeExitsTwoNamingTheFlagAndItsSpellings() {
        assertBad("--limit-algorithm", "bbr", "expected one of vegas, gradient2, aimd but was 'bbr'");
        assertBad("--foreground-policy", "rr", "expected one of fair, fifo but was 'rr'");
        assertBad("--miss-reads", "disk", "expected one of auto, loop, workers but was 'disk'");
        assertBad("--block-cache-type", "clock", "expected one of hyper-clock, lru but was 'clock'");
        assertBad("--rejection", "drop", "expected one of abort, caller-runs, discard-oldest, adaptive but was 'drop'");
        assertBad("--transport", "kqueue", "expected one of auto, io_uring, epoll, nio but was 'kqueue'");
        assertBad("--io-coalesce-wait", "yield", "expected one of park, spin but was 'yield'");
    }

    private static <T> T serve(Function<ServeCommand, T> field, String... flags) {
        String[] args = new String[flags.length + 1];
        args[0] = "serve";
        System.arraycopy(flags, 0, args, 1, flags.length);
        CommandLine.ParseResult result = Larder.commandLine().parseArgs(args);
        return field.apply((ServeCommand) result.subcommand().commandSpec().userObject());
    }

    private static void assertBad(String flag, String value, String message) {
        CommandLine cli = Larder.commandLine();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(err));
        int status = cli.execute("serve", flag, value);
        assertEquals(2, status, err.toString());
        assertTrue(err.toString().contains(flag), err.toString());
        assertTrue(err.toString().contains(message), err.toString());
    }
}
