package dev.larder.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LeakDetection;
import dev.larder.server.config.RejectReason;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.server.context.ServerContext;
import dev.larder.server.offload.Offload;
import dev.larder.server.offload.WorkerTask;
import dev.larder.storage.RocksDbStore;
import dev.larder.storage.StoreOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The dispatcher alone on an {@link EmbeddedChannel}, with a worker lane the test runs by hand. */
@ExtendWith(LeakDetection.class)
class RequestDispatcherTest {

    @TempDir
    Path dir;

    private RocksDbStore store;
    private ManualOffload offload;
    private EmbeddedChannel channel;
    // Parses what the dispatcher put on the wire, as a client would.
    private EmbeddedChannel client;

    @BeforeEach
    void setUp() {
        store = RocksDbStore.open(StoreOptions.defaults(dir));
        offload = new ManualOffload();
        ServerOptions options = ServerOptions.builder(1).build();
        ServerContext context = new ServerContext(options, store, offload, ServerObserver.NOOP);
        // The encoder sits where it does in the server: whole answers are written below it, as bytes.
        channel = new EmbeddedChannel(new HttpResponseEncoder(), new RequestDispatcher(context, new ConnectionState()));
        client = new EmbeddedChannel(new HttpResponseDecoder(), new HttpObjectAggregator(1 << 20));
    }

    @AfterEach
    void tearDown() {
        assertFalse(channel.finishAndReleaseAll());
        assertFalse(client.finishAndReleaseAll());
        store.close();
    }

    private static FullHttpRequest request(HttpMethod method, String uri, String body) {
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                body == null ? Unpooled.EMPTY_BUFFER : Unpooled.directBuffer().writeBytes(body.getBytes(UTF_8)));
    }

    /** The next answer on the wire, parsed; {@code null} when the dispatcher has written nothing more. */
    private FullHttpResponse response() {
        FullHttpResponse parsed = client.readInbound();
        while (parsed == null) {
            ByteBuf bytes = channel.readOutbound();
            if (bytes == null) {
                return null;
            }
            client.writeInbound(bytes);
            parsed = client.readInbound();
        }
        return parsed;
    }

    private static String body(FullHttpResponse r) {
        try {
            return r.content().toString(UTF_8);
        } finally {
            r.release();
        }
    }

    @Test
    void anAnswerThatCannotBeWrittenClosesTheConnectionQuietly() {
        // Answers that keep the connection go out with the void promise: a failed write must still end up closing.
        ServerContext context = new ServerContext(ServerOptions.builder(1).build(), store, offload, ServerObserver.NOOP);
        EmbeddedChannel broken = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(new IOException("connection reset by peer"));
            }
        }, new HttpResponseEncoder(), new RequestDispatcher(context, new ConnectionState()));
        broken.writeInbound(request(HttpMethod.GET, "/v0/status", null));
        broken.runPendingTasks();
        assertFalse(broken.isOpen(), "the connection whose answer failed is closed");
        broken.checkException();
        assertFalse(broken.finishAndReleaseAll());
    }

    @Test
    void statusIsAnsweredOnTheEventLoopWithoutTheWorkers() {
        channel.writeInbound(request(HttpMethod.GET, "/v0/status", null));
        FullHttpResponse r = response();
        assertEquals(200, r.status().code());
        r.release();
        assertTrue(offload.tasks.isEmpty());
    }

    @Test
    void storageWorkWaitsForItsWorkerAndTheRequestBufferIsReleasedAtOnce() {
        FullHttpRequest put = request(HttpMethod.PUT, "/v0/entity?id=k", "value");
        put.retain(); // keep a reference to watch the dispatcher release its own
        channel.writeInbound(put);
        assertEquals(1, put.refCnt(), "released by the dispatcher before the work ran");
        put.release();
        assertNull(response(), "no answer before the worker ran");
        assertEquals(1, offload.tasks.size());
        offload.runAll();
        channel.runPendingTasks();
        FullHttpResponse r = response();
        assertEquals(201, r.status().code());
        assertEquals("0", r.headers().get("content-length"));
        r.release();
        assertEquals("value", new String(store.get("k".getBytes(UTF_8)), UTF_8));
    }

    @Test
    void pipelinedRequestsWaitForThePreviousAnswer() {
        channel.writeInbound(request(HttpMethod.PUT, "/v0/entity?id=p", "1"));
        channel.writeInbound(request(HttpMethod.GET, "/v0/status", null));
        channel.writeInbound(request(HttpMethod.GET, "/v0/entity?id=p", null));
        assertNull(response(), "status must not overtake the PUT before it");
        offload.runAll();
        channel.runPendingTasks();
        FullHttpResponse put = response();
        assertEquals(201, put.status().code());
        put.release();
        FullHttpResponse status = response();
        assertEquals(200, status.status().code());
        status.release();
        offload.runAll();
        channel.runPendingTasks();
        assertEquals("1", body(response()));
    }

    @Test
    void rejectedWorkIsAnswered503WithRetryAfter() {
        channel.writeInbound(request(HttpMethod.GET, "/v0/entity?id=r", null));
        offload.tasks.remove().reject(RejectReason.QUEUE_FULL);
        channel.runPendingTasks();
        FullHttpResponse r = response();
        assertEquals(503, r.status().code());
        assertEquals("1", r.headers().get("retry-after"));
        r.release();
    }

    @Test
    void aTaskIsAnsweredExactlyOnceEvenIfRejectedAfterRunning() {
        channel.writeInbound(request(HttpMethod.PUT, "/v0/entity?id=once", "v"));
        WorkerTask task = offload.tasks.remove();
        task.run();
        task.reject(RejectReason.SHUTTING_DOWN);
        task.run();
        channel.runPendingTasks();
        FullHttpResponse r = response();
        assertEquals(201, r.status().code());
        r.release();
        assertNull(response());
    }

    @Test
    void waitingRequestsAreReleasedWhenTheClientGoesAway() {
        channel.writeInbound(request(HttpMethod.PUT, "/v0/entity?id=a", "1"));
        channel.writeInbound(request(HttpMethod.PUT, "/v0/entity?id=b", "2"));
        channel.writeInbound(request(HttpMethod.PUT, "/v0/entity?id=c", "3"));
        channel.close();
        offload.runAll(); // the one in progress finishes; its answer has nowhere to go
        channel.runPendingTasks();
        // the leak guard and finishAndReleaseAll() prove nothing was left unreleased
    }

    /** A lane that queues tasks until the test runs them. */
    static final class ManualOffload implements Offload {
        final Queue<WorkerTask> tasks = new ArrayDeque<>();
        final Queue<Runnable> steps = new ArrayDeque<>();

        void runAll() {
            while (!tasks.isEmpty() || !steps.isEmpty()) {
                if (!tasks.isEmpty()) {
                    tasks.remove().run();
                } else {
                    steps.remove().run();
                }
            }
        }

        @Override
        public Lane newLane() {
            return new Lane() {
                @Override
                public void submit(WorkerTask task) {
                    tasks.add(task);
                }

                @Override
                public void resume(Runnable step) {
                    steps.add(step);
                }
            };
        }

        @Override
        public int[] pendingPerWorker() {
            return new int[] {tasks.size()};
        }

        @Override
        public void drain(Duration timeout) {
        }

        @Override
        public void close() {
        }
    }
}
