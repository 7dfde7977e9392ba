package dev.larder.server.http;

import dev.larder.server.answer.Answer;
import dev.larder.server.answer.HttpResponses;
import dev.larder.server.config.RejectReason;
import dev.larder.server.context.ServerContext;
import dev.larder.server.offload.Offload;
import dev.larder.server.offload.WorkerTask;
import dev.larder.server.range.RangeSink;
import dev.larder.server.range.RangeStream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;

/**
 * The per-connection request handler: refuses what HTTP/1.1 cannot serve, looks each whole request up in the
 * {@link Routes} table and runs its {@link RouteHandler}, which answers on the event loop or hands storage work to
 * the connection's {@link Offload.Lane}.
 *
 * <p>One request per connection is served at a time; requests pipelined behind it wait here, in order, so responses
 * leave in request order whichever thread produced them. When too many wait, or the client does not read its
 * responses (the channel is unwritable), the connection stops reading: memory per connection stays bounded.
 *
 * <p>Request buffers are copied into byte arrays and released on the event loop before any work is queued, so no
 * path (run, reject, discard, shutdown) ever owns a request buffer.
 */
final class RequestDispatcher extends ChannelInboundHandlerAdapter implements Exchange, RangeSink {

    private static final String ROUTE_UNKNOWN = "UNKNOWN";
    private static final int MAX_WAITING = 16;

    private final ServerContext server;
    private final ConnectionState state;
    private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    // Where whole answers are written: below the HTTP encoder, which only the range stream's chunks go through.
    private ChannelHandlerContext wire;
    private Offload.Lane lane;
    private boolean serving;
    private boolean draining;
    private boolean readingPaused;
    private boolean closeAfterResponse;
    private RangeStream stream;
    private boolean streamAwaitsWritability;
    // The request being served (one at a time), for the metrics of its response.
    private String currentMethod;
    private String currentRoute;
    private long currentStart;

    RequestDispatcher(ServerContext server, ConnectionState state) {
        this.server = server;
        this.state = state;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ChannelHandlerContext encoder = ctx.pipeline().context(HttpResponseEncoder.class);
        this.wire = encoder != null ? encoder : ctx;
        this.lane = server.offload.newLane();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        state.requestReceived();
        if (serving || !waiting.isEmpty()) {
            waiting.add(request);
            state.busy = true;
            if (waiting.size() >= MAX_WAITING) {
                pauseReading();
            }
            return;
        }
        serve(request);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            if (stream != null && streamAwaitsWritability) {
                streamAwaitsWritability = false;
                stream.requestNext();
            } else {
                serveWaiting();
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        for (FullHttpRequest request = waiting.poll(); request != null; request = waiting.poll()) {
            request.release();
        }
        if (stream != null) {
            stream.cancel();
            stream = null;
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException) {
            // A handler below gave up on the input and drops the rest of it. Answer what is in progress, saying
            // "close", then close, instead of resetting the connection under answers already on their way.
            closeWhenIdle();
            return;
        }
        // Connection resets and the like: nothing to answer, the peer is gone.
        ctx.close();
    }

    private void serve(FullHttpRequest request) {
        serving = true;
        state.busy = true;
        currentStart = System.nanoTime();
        currentMethod = request.method().name();
        currentRoute = ROUTE_UNKNOWN;
        try {
            route(request);
        } finally {
            request.release();
        }
    }

    private void route(FullHttpRequest request) {
        DecoderResult result = request.decoderResult();
        if (result.isFailure()) {
            closeAfterResponse = true;
            complete(malformed(result.cause()));
            return;
        }
        if (request.protocolVersion().majorVersion() != 1) {
            // An HTTP/2 prior-knowledge preface ("PRI * HTTP/2.0") or any other major version: say so and close,
            // rather than answer "unknown path *" and then misparse the binary frames that follow.
            closeAfterResponse = true;
            complete(HttpResponses.text(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED,
                    request.protocolVersion().text() + " is not supported on this port; use HTTP/1.1"));
            return;
        }
        String coding = request.headers().get(HttpHeaderNames.TRANSFER_ENCODING);
        if (coding != null) {
            // The aggregator removes a lone "chunked" once it has decoded it. Anything left ("gzip, chunked", ...) is
            // a coding we would otherwise store still encoded: refuse it (RFC 9112 6.1: 501) and close.
            closeAfterResponse = true;
            complete(HttpResponses.text(HttpResponseStatus.NOT_IMPLEMENTED,
                    "Transfer-Encoding '" + coding + "' is not supported; send chunked or Content-Length"));
            return;
        }
        if (!HttpUtil.isKeepAlive(request)) {
            closeAfterResponse = true;
        }
        String uri = request.uri();
        Routes.Route route = Routes.V0.find(uri, QueryParams.pathEnd(uri));
        if (route == null) {
            complete(HttpResponses.text(HttpResponseStatus.BAD_REQUEST, "unknown path " + QueryParams.path(uri)));
            return;
        }
        currentRoute = route.path();
        RouteHandler handler = route.handler(request.method());
        if (handler == null) {
            complete(route.methodNotAllowed());
            return;
        }
        handler.handle(request, this);
    }

    @Override
    public ServerContext server() {
        return server;
    }

    @Override
    public void answer(Answer answer) {
        complete(answer);
    }

    @Override
    public void streamRange(byte[] start, byte[] end) {
        RangeStream range = new RangeStream(this, server, lane, ctx.alloc(), start, end);
        stream = range;
        submit(range);
    }

    @Override
    public void submit(WorkerTask task) {
        if (server.shuttingDown()) {
            closeAfterResponse = true;
            server.observer.rejected(server.options.rejection(), RejectReason.SHUTTING_DOWN);
            if (task == stream) {
                stream = null;
            }
            complete(HttpResponses.unavailable(RejectReason.SHUTTING_DOWN));
            return;
        }
        lane.submit(task);
    }

    private static Answer malformed(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return HttpResponses.text(HttpResponseStatus.REQUEST_URI_TOO_LONG, "request line too long");
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return HttpResponses.text(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request headers too large");
        }
        String reason = cause == null ? "malformed request" : String.valueOf(cause.getMessage());
        return HttpResponses.text(HttpResponseStatus.BAD_REQUEST, "malformed request: " + reason.replace('\n', ' '));
    }

    /**
     * Hands a finished response to the connection; callable from any thread. {@code serviceStart} is when a worker
     * began the request (0 when it never did).
     */
    @Override
    public void respond(Answer response, long serviceStart) {
        if (ctx.executor().inEventLoop()) {
            complete(response, serviceStart);
            return;
        }
        try {
            Offload.answerOn(ctx.executor(), () -> complete(response, serviceStart));
        } catch (RejectedExecutionException e) {
            // The event loop is gone, and the connection with it: nothing to answer.
        }
    }

    private void complete(Answer response) {
        complete(response, 0);
    }

    private void complete(Answer response, long serviceStart) {
        // A full response while a range is set means the range never started streaming (rejected or failed).
        stream = null;
        if (!ctx.channel().isActive()) {
            finished(response.status().code(), serviceStart);
            return;
        }
        response.writeAndFlush(wire, closeAfterResponse);
        finished(response.status().code(), serviceStart);
    }

    /** A range batch is ready; callable from any thread. */
    @Override
    public void streamBatch(RangeStream range, ByteBuf batch, boolean last) {
        try {
            ctx.executor().execute(() -> writeBatch(range, batch, last));
        } catch (RejectedExecutionException e) {
            batch.release();
            range.cancel();
        }
    }

    private void writeBatch(RangeStream range, ByteBuf batch, boolean last) {
        if (range != stream || !ctx.channel().isActive()) {
            batch.release();
            range.cancel();
            return;
        }
        if (!range.headerSent()) {
            range.markHeaderSent();
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
            HttpUtil.setTransferEncodingChunked(head, true);
            if (closeAfterResponse) {
                head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            ctx.write(head);
        }
        if (batch.isReadable()) {
            ctx.write(new DefaultHttpContent(batch));
        } else {
            batch.release();
        }
        if (last) {
            stream = null;
            ChannelFuture written = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            if (closeAfterResponse) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
            finished(200, range.serviceStart());
        } else {
            ctx.flush();
            if (ctx.channel().isWritable()) {
                range.requestNext();
            } else {
                streamAwaitsWritability = true;
            }
        }
    }

    /** The range failed; callable from any thread. Before the first batch it is a 500, after it the stream is cut. */
    @Override
    public void streamFailed(RangeStream range, RuntimeException failure) {
        Runnable fail = () -> {
            if (range != stream) {
                return;
            }
            if (range.headerSent()) {
                stream = null;
                ctx.close();
                finished(200, range.serviceStart());
            } else {
                complete(HttpResponses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR,
                        "storage failure: " + failure.getMessage()));
            }
        };
        try {
            ctx.executor().execute(fail);
        } catch (RejectedExecutionException e) {
            // Event loop gone: nothing left to answer.
        }
    }

    private void finished(int status, long serviceStart) {
        long now = System.nanoTime();
        if (serviceStart != 0) {
            server.observer.serviceTime(now - serviceStart);
        }
        server.observer.requestCompleted(currentMethod, currentRoute, status, now - currentStart);
        state.responseCompleted(now);
        lane.finished(status);
        serving = false;
        state.busy = !waiting.isEmpty();
        if (closeAfterResponse) {
            for (FullHttpRequest request = waiting.poll(); request != null; request = waiting.poll()) {
                request.release();
            }
            state.busy = false;
            return;
        }
        serveWaiting();
    }

    private void serveWaiting() {
        if (draining) {
            return; // an outer serveWaiting() on this stack is already looping
        }
        draining = true;
        try {
            while (!serving && !waiting.isEmpty() && ctx.channel().isWritable()) {
                serve(waiting.poll());
            }
        } finally {
            draining = false;
        }
        if (readingPaused && waiting.size() < MAX_WAITING / 2 && ctx.channel().isWritable()) {
            readingPaused = false;
            ctx.channel().config().setAutoRead(true);
        } else if (!ctx.channel().isWritable()) {
            pauseReading();
        }
    }

    private void pauseReading() {
        if (!readingPaused) {
            readingPaused = true;
            ctx.channel().config().setAutoRead(false);
        }
    }

    /** Closes the connection once it has nothing in progress (shutdown); runs on the event loop. */
    void closeWhenIdle() {
        closeAfterResponse = true;
        if (!serving && waiting.isEmpty() && stream == null) {
            ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
