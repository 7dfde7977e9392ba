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
            }
        }
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
