package dev.larder.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.config.ServerObserver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * GETs, PUTs and DELETEs go to the worker their event loop picks for them, not to one fixed per connection: over
 * real sockets and a real store, a worker held in a storage call holds up no other connection's requests. When each
 * connection had its own worker, the connections that shared the held one waited with it.
 */
@ExtendWith(LeakDetection.class)
class WorkerChoiceTest {

    @TempDir
    Path dir;

    private final List<RawHttp> connections = new ArrayList<>();
    private TestServer larder;
    private GatedStore gated;

    private void start(int workers) {
        AtomicReference<GatedStore> ref = new AtomicReference<>();
        larder = new TestServer(dir, o -> o.ioThreads(1).workers(workers).queueSize(16),
                GatedStore.into(ref), ServerObserver.NOOP);
        gated = ref.get();
    }

    @AfterEach
    void stop() throws Exception {
        gated.open();
        for (RawHttp c : connections) {
            c.close();
        }
        larder.close();
    }

    private RawHttp connect() throws Exception {
        RawHttp c = larder.connect();
        connections.add(c);
        return c;
    }

    @Test
    void aWorkerHeldInAStorageCallHoldsUpNoOtherConnection() throws Exception {
        start(2);
        RawHttp blocker = connect();
        blocker.send(RawHttp.request("PUT", "/v0/entity?id=block-0", "held"));
        gated.awaitBlocked(1);
        // Past the time after which a worker still in its run counts as held up (WorkerChoice.HELD_UP, 500 us).
        Thread.sleep(20);
        // Eight more connections, each with writes, reads and a delete, one request at a time: with a worker fixed
        // per connection, every second one would share the held worker and its first request would time out
        // (RawHttp waits 10 s).
        for (int i = 0; i < 8; i++) {
            RawHttp c = connect();
            assertEquals(201, c.exchange("PUT", "/v0/entity?id=k" + i, "v" + i).status(), "PUT on connection " + i);
            RawHttp.Response got = c.exchange("GET", "/v0/entity?id=k" + i, null);
            assertEquals(200, got.status(), "GET on connection " + i);
            assertEquals("v" + i, new String(got.body(), UTF_8));
            assertEquals(202, c.exchange("DELETE", "/v0/entity?id=k" + i, null).status(), "DELETE on connection " + i);
            assertEquals(404, c.exchange("GET", "/v0/entity?id=k" + i, null).status());
        }
        gated.open();
        assertEquals(201, blocker.read().status());
        assertEquals("held", new String(connect().exchange("GET", "/v0/entity?id=block-0", null).body(), UTF_8));
    }
}
