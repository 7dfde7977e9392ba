package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a bench's shutdown hook removes for one launched server, with real files and a real process: a signal may come
 * before the server is spawned (its directory and log already made) or after.
 */
class ServerHandleLeftoversTest {

    @TempDir
    Path tmp;

    private Path dataDir() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("data"));
        Files.writeString(dir.resolve("LOG"), "a file inside, as RocksDB leaves them");
        return dir;
    }

    @Test
    void beforeTheServerIsSpawnedItRemovesTheDirectoryAndTheLogAndNoServerIsSpawnedAfter() throws IOException {
        Path dataDir = dataDir();
        Path log = Files.writeString(tmp.resolve("server.log"), "");
        ServerHandle.Leftovers leftovers = new ServerHandle.Leftovers(dataDir, log);

        leftovers.run();

        assertFalse(Files.exists(dataDir), "data directory left");
        assertFalse(Files.exists(log), "log left");
        Path marker = tmp.resolve("spawned");
        assertThrows(IOException.class,
                () -> leftovers.spawn(new ProcessBuilder("touch", marker.toString())));
        assertFalse(Files.exists(marker), "a server was spawned after the hook ran: nothing would stop it");
    }

    @Test
    void afterTheServerIsSpawnedItStopsItAndRemovesTheDirectoryAndTheLog() throws Exception {
        Path dataDir = dataDir();
        Path log = Files.writeString(tmp.resolve("server.log"), "");
        ServerHandle.Leftovers leftovers = new ServerHandle.Leftovers(dataDir, log);
        Process server = leftovers.spawn(new ProcessBuilder("sleep", "60"));
        try {
            assertTrue(server.isAlive());

            leftovers.run();

            assertTrue(server.waitFor(5, TimeUnit.SECONDS), "the spawned process still runs");
            assertFalse(Files.exists(dataDir), "data directory left");
            assertFalse(Files.exists(log), "log left");
        } finally {
            server.destroyForcibly();
        }
    }
}
