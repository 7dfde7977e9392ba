package dev.larder.cli.powercut;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The power-cut file system itself, through real system calls on a real FUSE mount: what was fsynced survives a cut,
 * and nothing else does; until the cut the mount reads like any file system.
 */
class PowerCutFsIT {

    @TempDir
    Path dir;

    private Path backing;
    private Path mnt;
    private PowerCutFs fs;

    @BeforeEach
    void mount() throws Exception {
        backing = Files.createDirectory(dir.resolve("backing"));
        mnt = Files.createDirectory(dir.resolve("mnt"));
        fs = PowerCutFs.mount(backing, mnt);
    }

    @AfterEach
    void cleanUp() throws Exception {
        fs.close();
    }

    @Test
    void aWriteWithoutFsyncIsGoneAfterACut() throws Exception {
        durableFile("f", "synced ");
        append(mnt.resolve("f"), "unsynced", false);
        assertEquals("synced unsynced", read(mnt.resolve("f")), "the mount reads its own writes");
        PowerCutFs.Dropped dropped = fs.cut();
        assertEquals("synced ", read(backing.resolve("f")));
        assertEquals(List.of("f"), dropped.dirtyFiles());
        assertEquals(List.of(), dropped.unsyncedEntries());
    }

    @Test
    void writesWithFsyncOrFdatasyncStay() throws Exception {
        durableFile("f", "one ");
        append(mnt.resolve("f"), "two ", true);
        try (FileChannel ch = FileChannel.open(mnt.resolve("f"), StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.wrap("three".getBytes(UTF_8)));
            ch.force(false); // fdatasync
        }
        fs.cut();
        assertEquals("one two three", read(backing.resolve("f")));
    }

    @Test
    void anUnsyncedCreateIsUndoneEvenWhenTheFileWasFsynced() throws Exception {
        append(mnt.resolve("new"), "data", true); // the file's data is durable, its name is not
        assertTrue(Files.exists(mnt.resolve("new")));
        PowerCutFs.Dropped dropped = fs.cut();
        assertFalse(Files.exists(backing.resolve("new")));
        assertEquals(List.of("+new"), dropped.unsyncedEntries());
        assertFalse(Files.exists(dir.resolve("backing.stage")), "orphans are gone with the stage directory");
    }

    @Test
    void aSyncedDirectoryEntryStays() throws Exception {
        append(mnt.resolve("new"), "data", true);
        fsyncDir(mnt);
        fs.cut();
        assertEquals("data", read(backing.resolve("new")));
    }

    @Test
    void anUnsyncedRenameIsUndoneAndASyncedOneStays() throws Exception {
        durableFile("a", "A");
        durableFile("old", "X");
        Files.move(mnt.resolve("a"), mnt.resolve("b"), StandardCopyOption.ATOMIC_MOVE);
        Files.move(mnt.resolve("old"), mnt.resolve("b2"), StandardCopyOption.ATOMIC_MOVE);
        assertFalse(Files.exists(mnt.resolve("a")));
        assertEquals("A", read(mnt.resolve("b")));
        fs.cut();
        assertEquals(List.of("a", "old"), list(backing), "neither rename was synced");

        fs = PowerCutFs.mount(backing, mnt);
        Files.move(mnt.resolve("a"), mnt.resolve("b"), StandardCopyOption.ATOMIC_MOVE);
        fsyncDir(mnt);
        fs.cut();
        assertEquals(List.of("b", "old"), list(backing));
        assertEquals("A", read(backing.resolve("b")));
    }

    @Test
    void aRenameOverAnExistingFileIsUndoneToTheOldFile() throws Exception {
        durableFile("CURRENT", "MANIFEST-1");
        append(mnt.resolve("CURRENT.tmp"), "MANIFEST-2", true);
        Files.move(mnt.resolve("CURRENT.tmp"), mnt.resolve("CURRENT"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        assertEquals("MANIFEST-2", read(mnt.resolve("CURRENT")));
        fs.cut();
        assertEquals(List.of("CURRENT"), list(backing));
        assertEquals("MANIFEST-1", read(backing.resolve("CURRENT")));
    }

    @Test
    void anUnsyncedUnlinkIsUndone() throws Exception {
        durableFile("f", "kept");
        Files.delete(mnt.resolve("f"));
        assertFalse(Files.exists(mnt.resolve("f")));
        fs.cut();
        assertEquals("kept", read(backing.resolve("f")));
    }

    @Test
    void unsyncedOverwritesAndTruncationsAreUndone() throws Exception {
        byte[] original = new byte[3 * 4096 + 123];
        new Random(1).nextBytes(original);
        try (FileChannel ch = FileChannel.open(mnt.resolve("f"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(original));
            ch.force(true);
        }
        fsyncDir(mnt);
        try (FileChannel ch = FileChannel.open(mnt.resolve("f"), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[5000]), 2000);
            ch.truncate(100);
            ch.write(ByteBuffer.wrap(new byte[] {7}), 9000); // grows again: bytes 100..9000 must read as zeros
        }
        byte[] live = Files.readAllBytes(mnt.resolve("f"));
        assertEquals(9001, live.length);
        assertArrayEquals(Arrays.copyOf(original, 100), Arrays.copyOf(live, 100));
        assertArrayEquals(new byte[8900], Arrays.copyOfRange(live, 100, 9000));
        fs.cut();
        assertArrayEquals(original, Files.readAllBytes(backing.resolve("f")));
    }

    @Test
    void randomWritesReadBackLiveAndOnlyTheLastSyncedStateSurvives() throws Exception {
        Random random = new Random(20261123);
        byte[] live = new byte[0];
        byte[] durable = new byte[0];
        Path f = mnt.resolve("f");
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            fsyncDir(mnt);
            for (int op = 0; op < 400; op++) {
                int kind = random.nextInt(10);
                if (kind < 7) {
                    byte[] data = new byte[random.nextInt(9000)];
                    random.nextBytes(data);
                    int at = random.nextInt(live.length + 5000);
                    ch.write(ByteBuffer.wrap(data), at);
                    live = Arrays.copyOf(live, Math.max(live.length, at + data.length));
                    System.arraycopy(data, 0, live, at, data.length);
                } else if (kind < 8) {
                    int size = random.nextInt(live.length + 1);
                    ch.truncate(size);
                    live = Arrays.copyOf(live, size);
                } else if (kind < 9) {
                    ch.force(random.nextBoolean());
                    durable = live.clone();
                } else {
                    ByteBuffer back = ByteBuffer.allocate(live.length);
                    while (back.hasRemaining() && ch.read(back, back.position()) > 0) {
                        // read to the end
                    }
                    assertArrayEquals(live, back.array(), "live read-back after op " + op);
                }
            }
            assertArrayEquals(live, Files.readAllBytes(f));
        }
        fs.cut();
        assertArrayEquals(durable, Files.readAllBytes(backing.resolve("f")));
    }

    @Test
    void aSubdirectoryNeedsItsParentSyncedToo() throws Exception {
        Files.createDirectory(mnt.resolve("d"));
        append(mnt.resolve("d").resolve("f"), "inside", true);
        fsyncDir(mnt.resolve("d"));
        fs.cut();
        assertFalse(Files.exists(backing.resolve("d")), "d's own entry in the root was never synced");

        fs = PowerCutFs.mount(backing, mnt);
        Files.createDirectory(mnt.resolve("d"));
        append(mnt.resolve("d").resolve("f"), "inside", true);
        fsyncDir(mnt.resolve("d"));
        fsyncDir(mnt);
        fs.cut();
        assertEquals("inside", read(backing.resolve("d").resolve("f")));
    }

    @Test
    void aCleanUnmountKeepsEverything() throws Exception {
        append(mnt.resolve("f"), "never synced", false);
        fs.unmount();
        assertEquals("never synced", read(backing.resolve("f")));
    }

    @Test
    void whatSurvivedACutIsWhatTheNextMountShows() throws Exception {
        durableFile("f", "durable");
        append(mnt.resolve("f"), " lost", false);
        append(mnt.resolve("g"), "lost too", false);
        fs.cut();
        fs = PowerCutFs.mount(backing, mnt);
        assertEquals(List.of("f"), list(mnt));
        assertEquals("durable", read(mnt.resolve("f")));
    }

    /** A file whose data and name are both durable. */
    private void durableFile(String name, String content) throws IOException {
        append(mnt.resolve(name), content, true);
        fsyncDir(mnt);
    }

    private static void append(Path file, String text, boolean fsync) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.wrap(text.getBytes(UTF_8)));
            if (fsync) {
                ch.force(true);
            }
        }
    }

    /** On Linux a directory opened for reading can be fsynced: that is what makes its entries durable. */
    static void fsyncDir(Path directory) throws IOException {
        try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, UTF_8);
    }

    private static List<String> list(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
