package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.ServerObserver;
import dev.larder.storage.RangeCursor;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The warm-up against a real server: every kind of request answered as expected, and nothing left behind. */
class PipelineWarmupTest {

    @TempDir
    Path dir;

    @Test
    void everyRequestKindIsAnsweredAndTheWarmupKeysAreGoneAfterwards() throws Exception {
        AtomicLong requests = new AtomicLong();
        ServerObserver counting = new ServerObserver() {
            @Override
            public void requestCompleted(String method, String route, int status, long nanos) {
                requests.incrementAndGet();
            }
        };
        for (int workers : new int[] {0, 2}) {
            requests.set(0);
            try (TestServer server = new TestServer(dir.resolve("w" + workers), o -> o.workers(workers),
                    s -> s, counting)) {
                long sent = new PipelineWarmup(server.address()).run(2_000);
                assertTrue(sent >= 2_000, "sent " + sent);
                try (RangeCursor all = server.store.range(new byte[0], null)) {
                    assertFalse(all.next(), "a warm-up key was left in the store");
                }
                assertEquals(sent, requests.get(), "the server answered every warm-up request");
                if (workers > 0) {
                    assertBatchedPathsRan(server.store.stats(), sent);
                }
            }
        }
    }

    /**
     * The workers' batched paths ran too (requests of different connections that met in a worker's queue), so the
     * JIT compiled them with every kind of request: GETs as MultiGets of several keys, and fewer storage writes
     * than PUTs and DELETEs (two of every nine warm-up requests).
     */
    private static void assertBatchedPathsRan(dev.larder.storage.StoreStats stats, long sent) {
        long multiGets = stats.ticker("NUMBER_MULTIGET_CALLS").orElseThrow();
        long multiGetKeys = stats.ticker("NUMBER_MULTIGET_KEYS_READ").orElseThrow();
        assertTrue(multiGets > 0 && multiGetKeys > multiGets, multiGets + " MultiGets of " + multiGetKeys + " keys");
        long writes = stats.ticker("WRITE_DONE_BY_SELF").orElseThrow() + stats.ticker("WRITE_DONE_BY_OTHER")
                .orElseThrow();
        long mutations = sent * 2 / 9;
        assertTrue(writes > 0 && writes < mutations, writes + " storage writes for " + mutations + " PUTs and DELETEs");
    }

    @Test
    void aServerThatIsNotListeningFailsTheWarmupLoudly() throws Exception {
        java.net.InetSocketAddress closed;
        try (TestServer server = new TestServer(dir.resolve("gone"), o -> o)) {
            closed = server.address();
        }
        assertThrows(java.io.IOException.class, () -> new PipelineWarmup(closed).run(10));
    }
}
