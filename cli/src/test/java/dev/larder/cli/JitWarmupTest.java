package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.config.ServerOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

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
}
