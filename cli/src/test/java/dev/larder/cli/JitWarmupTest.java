package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import dev.larder.server.config.ServerOptions;
import dev.larder.storage.StoreOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which request paths the warm-up compiles: with the loop running quick calls, the worker's path as well. */
class JitWarmupTest {

    @Test
    void withInlineCallsTheWarmupAlsoHandsEveryRequestOverFirst() {
        ServerOptions options = ServerOptions.builder(2).build();
        assertEquals(64, options.inlineBatch(), "the default runs quick calls on the loop");
        List<ServerOptions> paths = JitWarmup.requestPaths(options);
        assertEquals(2, paths.size());
        assertEquals(ServerOptions.builder(2).inlineBatch(0).build(), paths.get(0),
                "first the worker's path: every request handed over, nothing else changed");
        assertEquals(options, paths.get(1), "then the server as configured");
    }

    @Test
    void withoutInlineCallsOrWithoutWorkersOneServerCoversEveryPath() {
        ServerOptions handOver = ServerOptions.builder(2).inlineBatch(0).build();
        assertEquals(List.of(handOver), JitWarmup.requestPaths(handOver));
        ServerOptions sync = ServerOptions.builder(2).workers(0).build();
        assertEquals(List.of(sync), JitWarmup.requestPaths(sync));
    }

    @Test
    void aLowConnectionLimitDoesNotStopTheWarmup(@TempDir Path dir) {
        // The soak and the load hold 64 connections each; the limit is the server's, not the warm-up's.
        ServerOptions options = ServerOptions.builder(2).maxConnections(4).build();
        assertDoesNotThrow(() -> JitWarmup.run(options, StoreOptions.defaults(dir.resolve("data")), false, 2_000,
                Duration.ofMillis(100)));
    }
}
