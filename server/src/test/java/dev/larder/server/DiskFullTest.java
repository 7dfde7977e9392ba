package dev.larder.server;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.ServerOptions;
import dev.larder.storage.RocksDbStore;
import dev.larder.storage.StoreOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A full disk, for real: the data directory lives on a 256 MiB tmpfs that a ballast file fills up. Writes get 507
 * with a one-line reason, reads, ranges and status keep working, the server stays up, writes work again once space
 * returns (RocksDB's own recovery, which polls every 5 s and needs free space for one memtable flush), and every
 * acknowledged write is there after a restart.
 *
 * <p>Mounting needs root (CAP_SYS_ADMIN); where the machine does not allow it the test is skipped (aborted) with
 * the reason printed, never passed.
 */
@ExtendWith(LeakDetection.class)
class DiskFullTest {

    private static final String TMPFS_SIZE = "256m";

    @TempDir
    Path dir;

    private Path mount;
    private TestServer larder;

    @BeforeEach
    void mountTmpfs() throws Exception {
        mount = dir.resolve("tmpfs");
        Files.createDirectories(mount);
        String why = run("mount", "-t", "tmpfs", "-o", "size=" + TMPFS_SIZE, "tmpfs", mount.toString());
        if (why != null) {
            System.out.println("DiskFullTest skipped: cannot mount a tmpfs here: " + why);
            Assumptions.abort("cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN): " + why);
        }
    }

    @AfterEach
    void unmount() throws Exception {
        if (larder != null) {
            larder.close();
        }
        if (run("umount", mount.toString()) != null) {
            run("umount", "-l", mount.toString());
        }
    }

    /** Runs a command; {@code null} on success, else why it failed. */
    private static String run(String... command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), UTF_8).strip();
            return p.waitFor() == 0 ? null : String.join(" ", command) + ": exit " + p.exitValue() + " " + output;
        } catch (IOException e) {
            return String.join(" ", command) + ": " + e.getMessage();
        }
    }

    private RawHttp.Response call(String method, String target, byte[] body) throws Exception {
        try (RawHttp http = larder.connect()) {
            return http.exchange(method, target, body == null ? null : new String(body, ISO_8859_1));
        }
    }

    /** With quick calls on the event loop (the default) the refused writes are the loop's; with 0, a worker's. */
    @ParameterizedTest(name = "--inline-batch {0}")
    @ValueSource(ints = {ServerOptions.DEFAULT_INLINE_BATCH, 0})
    void aFullDiskGives507KeepsReadsAndRecoversWhenSpaceReturns(int inlineBatch) throws Exception {
        larder = new TestServer(mount, o -> o.inlineBatch(inlineBatch));
        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        Random random = new Random(5);
        for (int i = 0; i < 50; i++) {
            byte[] v = new byte[4096];
            random.nextBytes(v);
            assertEquals(201, call("PUT", "/v0/entity?id=before/" + i, v).status());
            acknowledged.put("before/" + i, v);
        }
        assertEquals(202, call("DELETE", "/v0/entity?id=before/0", null).status());
        acknowledged.put("before/0", null);

        Path ballast = mount.resolve("ballast");
        long filled = fill(ballast);

        // Writes go on until RocksDB runs out of room (the WAL may have space set aside); every 201 counts.
        RawHttp.Response refused = null;
        byte[] big = new byte[1 << 20];
        for (int i = 0; i < 300 && refused == null; i++) {
            random.nextBytes(big);
            RawHttp.Response r = call("PUT", "/v0/entity?id=during/" + i, big);
            if (r.status() == 201) {
                acknowledged.put("during/" + i, big.clone());
            } else {
                refused = r;
            }
        }
        assertTrue(refused != null, "the disk never filled up");
        System.out.printf("disk full: ballast %d MiB; %d more MiB acknowledged before the first refusal: %d \"%s\"%n",
                filled >> 20, acknowledged.keySet().stream().filter(k -> k.startsWith("during/")).count(),
                refused.status(), refused.text().strip());
        assertEquals(507, refused.status(), refused.text());
        assertEquals(1, refused.text().strip().lines().count());
        assertTrue(refused.text().startsWith("storage failure: put: IOError(NoSpace)"), refused.text());

        // Still full: writes and deletes are refused clearly, everything acknowledged reads back, the server is up.
        assertEquals(507, call("PUT", "/v0/entity?id=small", "x".getBytes(UTF_8)).status());
        RawHttp.Response delete = call("DELETE", "/v0/entity?id=before/1", null);
        assertEquals(507, delete.status(), delete.text());
        assertTrue(delete.text().startsWith("storage failure: delete: "), delete.text());
        assertEquals(200, call("GET", "/v0/status", null).status());
        verify(acknowledged);
        RawHttp.Response range = call("GET", "/v0/entities?start=before/&end=before0", null);
        assertEquals(200, range.status());
        assertTrue(range.body().length >= 49 * 4096, "range while full: " + range.body().length + " bytes");

        // Space returns: RocksDB clears its background error by itself; writes work again.
        Files.delete(ballast);
        long freed = System.nanoTime();
        int status = 0;
        while (System.nanoTime() - freed < TimeUnit.SECONDS.toNanos(60)) {
            status = call("PUT", "/v0/entity?id=after/0", "back".getBytes(UTF_8)).status();
            if (status == 201) {
                break;
            }
            assertEquals(507, status);
            Thread.sleep(250);
        }
        long recoveryMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - freed);
        System.out.printf("disk full: writes accepted again %d ms after space returned%n", recoveryMillis);
        assertEquals(201, status, "writes never recovered after space returned");
        acknowledged.put("after/0", "back".getBytes(UTF_8));
        for (int i = 1; i < 20; i++) {
            byte[] v = new byte[8192];
            random.nextBytes(v);
            assertEquals(201, call("PUT", "/v0/entity?id=after/" + i, v).status());
            acknowledged.put("after/" + i, v);
        }
        verify(acknowledged);

        // Nothing acknowledged was lost: restart on the same directory and read everything back.
        larder.close();
        larder = null;
        try (RocksDbStore reopened = RocksDbStore.open(new StoreOptions(mount.resolve("db"), 8 << 20, 4 << 20, false, true, true))) {
            for (Map.Entry<String, byte[]> e : acknowledged.entrySet()) {
                assertArrayEquals(e.getValue(), reopened.get(e.getKey().getBytes(UTF_8)), e.getKey());
            }
        }
    }

    private void verify(Map<String, byte[]> acknowledged) throws Exception {
        try (RawHttp http = larder.connect()) {
            for (Map.Entry<String, byte[]> e : acknowledged.entrySet()) {
                RawHttp.Response r = http.exchange("GET", "/v0/entity?id=" + e.getKey(), null);
                if (e.getValue() == null) {
                    assertEquals(404, r.status(), e.getKey());
                } else {
                    assertEquals(200, r.status(), e.getKey());
                    assertArrayEquals(e.getValue(), r.body(), e.getKey());
                }
            }
        }
    }

    /** Writes {@code file} until the file system is full; returns its size. */
    private static long fill(Path file) throws IOException {
        byte[] chunk = new byte[1 << 20];
        long written = 0;
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
                written += chunk.length;
            }
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left")) {
                throw e;
            }
        }
        // Top up the last partial megabyte.
        try (OutputStream out = Files.newOutputStream(file, java.nio.file.StandardOpenOption.APPEND)) {
            while (true) {
                out.write(chunk, 0, 4096);
                written += 4096;
            }
        } catch (IOException e) {
            return written;
        }
    }
}
