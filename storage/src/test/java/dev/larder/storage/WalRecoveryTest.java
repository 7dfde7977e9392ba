package dev.larder.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a damaged write-ahead log is replayed: a real RocksDB whose log is cut or damaged on disk between close and
 * open (close syncs the log but leaves it unflushed, so reopening replays it).
 */
class WalRecoveryTest {

    private static final byte[] FIRST = "first".getBytes(UTF_8);
    private static final byte[] LAST = "last".getBytes(UTF_8);

    @TempDir
    Path dir;

    private static StoreOptions options(Path db, boolean sync) {
        return new StoreOptions(db, 8 << 20, 0, sync, false, true);
    }

    /** Two single-key writes, each its own log record, and the log file that holds them. */
    private Path writeTwoRecords(Path db, boolean sync) throws IOException {
        try (RocksDbStore store = RocksDbStore.open(options(db, sync))) {
            store.put(FIRST, new byte[100]);
            store.put(LAST, new byte[100]);
        }
        try (Stream<Path> files = Files.list(db)) {
            List<Path> logs = files.filter(p -> p.toString().endsWith(".log")).filter(WalRecoveryTest::nonEmpty)
                    .toList();
            assertEquals(1, logs.size(), "one log with the two records: " + logs);
            return logs.get(0);
        }
    }

    private static boolean nonEmpty(Path p) {
        try {
            return Files.size(p) > 0;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void syncModeDropsAnIncompleteLastRecordAndSaysSo() throws IOException {
        Path db = dir.resolve("db");
        Path log = writeTwoRecords(db, true);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 10); // the last record's body ends early: a write cut off mid-way
        }
        try (RocksDbStore store = RocksDbStore.open(options(db, true))) {
            assertArrayEquals(new byte[100], store.get(FIRST));
            assertNull(store.get(LAST));
            String warning = store.walRecoveryWarning().orElseThrow();
            assertTrue(warning.contains("incomplete record"), warning);
        }
    }

    @Test
    void syncModeRefusesALogDamagedBeforeItsEnd() throws IOException {
        Path db = dir.resolve("db");
        Path log = writeTwoRecords(db, true);
        flipByteInFirstRecord(log);
        StoreException e = assertThrows(StoreException.class, () -> RocksDbStore.open(options(db, true)));
        assertTrue(e.getMessage().contains("Corruption"), e.getMessage());
    }

    @Test
    void defaultModeRecoversUpToTheFirstDamagedRecord() throws IOException {
        Path db = dir.resolve("db");
        Path log = writeTwoRecords(db, false);
        flipByteInFirstRecord(log);
        try (RocksDbStore store = RocksDbStore.open(options(db, false))) {
            assertNull(store.get(FIRST), "replay stops at the damaged record");
            assertNull(store.get(LAST), "and replays nothing after it, so no hole");
            assertTrue(store.walRecoveryWarning().isEmpty());
        }
    }

    @Test
    void aCleanLogOpensWithoutWarningInSyncMode() throws IOException {
        Path db = dir.resolve("db");
        writeTwoRecords(db, true);
        try (RocksDbStore store = RocksDbStore.open(options(db, true))) {
            assertArrayEquals(new byte[100], store.get(LAST));
            assertTrue(store.walRecoveryWarning().isEmpty());
        }
    }

    /** A record is a 7-byte header then the payload: byte 20 is inside the first record's payload. */
    private static void flipByteInFirstRecord(Path log) throws IOException {
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, 20);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            ch.write(one, 20);
        }
    }
}
