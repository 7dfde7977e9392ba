package dev.larder.server.admin;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /debug/profile?event=cpu|alloc|lock|wall&seconds=N[&format=html|collapsed]}: profiles this process
 * for N seconds and answers the flame graph (self-contained HTML) or collapsed stacks.
 *
 * <ul>
 *   <li>One profile at a time, process-wide (async-profiler is a singleton): 409 while one runs.</li>
 *   <li>{@code cpu} uses perf events where the kernel allows them; where it does not (containers, seccomp,
 *       {@code perf_event_paranoid}) it samples with {@code itimer} and says so in {@code X-Profile-Fallback}.</li>
 *   <li>Where the native library cannot load: 501 with the reason.</li>
 * </ul>
 *
 * <p>The event loop only validates and hands over: loading, starting, waiting and dumping happen on one
 * profiler thread, which alone touches the profiler and the current {@link Session}. The connection stops reading
 * while its profile runs, so a pipelined request cannot overtake the profile's answer.
 */
public final class ProfileEndpoint implements AdminEndpoint, AutoCloseable {

    static final String EVENT_HEADER = "X-Profile-Event";
    static final String ENGINE_HEADER = "X-Profile-Engine";
    static final String FALLBACK_HEADER = "X-Profile-Fallback";
    static final String HTML = "text/html; charset=utf-8";

    private static final Logger log = LoggerFactory.getLogger(ProfileEndpoint.class);

    private final Callable<Profiler> loader;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean running = new AtomicBoolean();
    // Below: profiler thread only.
    private boolean loaded;
    private Profiler profiler;
    private String unavailable;
    private String cpuFallback;
    private boolean cpuChecked;
    private Session current;

    /** @param loader loads the profiler on first use; its exception's message is the 501 reason */
    public ProfileEndpoint(Callable<Profiler> loader) {
        this.loader = loader;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "larder-profiler");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void serve(ChannelHandlerContext ctx, FullHttpRequest request) {
        ProfileRequest profile;
        try {
            profile = ProfileRequest.parse(request.uri());
        } catch (IllegalArgumentException e) {
            ctx.writeAndFlush(AdminResponses.text(HttpResponseStatus.BAD_REQUEST, e.getMessage()));
            return;
        }
        if (!running.compareAndSet(false, true)) {
            ctx.writeAndFlush(AdminResponses.text(HttpResponseStatus.CONFLICT,
                    "a profile is already running; one at a time"));
            return;
        }
        ctx.channel().config().setAutoRead(false);
        try {
            thread.execute(() -> begin(ctx, profile));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            running.set(false);
            answer(ctx, AdminResponses.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "shutting down"));
        }
    }

    private void begin(ChannelHandlerContext ctx, ProfileRequest request) {
        if (!load()) {
            finishWith(ctx, AdminResponses.text(HttpResponseStatus.NOT_IMPLEMENTED, "profiling unavailable: "
                    + unavailable));
            return;
        }
        String event = request.event().name;
        String fallback = null;
        if (request.event() == ProfileRequest.Event.CPU) {
            fallback = cpuFallback();
            if (fallback != null) {
                event = "itimer";
            }
        }
        try {
            profiler.execute("start,event=" + event);
        } catch (IllegalStateException e) {
            // Started by someone else (an agent, another tool attached to this JVM).
            finishWith(ctx, AdminResponses.text(HttpResponseStatus.CONFLICT, "profiler busy: " + oneLine(e)));
            return;
        } catch (Exception e) {
            finishWith(ctx, AdminResponses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR,
                    "profiler failed to start " + event + ": " + oneLine(e)));
            return;
        }
        Session session = new Session(ctx, request, event, fallback);
        current = session;
        session.timer = thread.schedule(() -> finish(session), request.seconds(), TimeUnit.SECONDS);
        ctx.channel().closeFuture().addListener(f -> {
            try {
                thread.execute(() -> abandon(session));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // Shutting down: close() stops the profiler.
            }
        });
        log.info("profiling {} for {}s{}", event, request.seconds(), fallback == null ? "" : " (" + fallback + ")");
    }

    private boolean load() {
        if (!loaded) {
            loaded = true;
            try {
                profiler = loader.call();
            } catch (Exception | LinkageError e) {
                unavailable = oneLine(e);
                log.warn("profiling unavailable: {}", unavailable);
            }
        }
        return profiler != null;
    }

    /** Null when perf events work; otherwise the fallback's description. Asked once: permissions do not change. */
    private String cpuFallback() {
        if (!cpuChecked) {
            cpuChecked = true;
            String why;
            try {
                // "check,event=cpu" always passes (async-profiler falls back by itself, silently); cpu-clock is the
                // perf event behind cpu, so checking it tells whether perf events are permitted here.
                String answer = profiler.execute("check,event=cpu-clock").trim();
                why = answer.equals("OK") ? null : answer;
            } catch (Exception e) {
                why = oneLine(e);
            }
            cpuFallback = why == null ? null
                    : "itimer: perf events are not permitted here (" + why + "); sampling CPU time with setitimer, "
                            + "without kernel frames";
        }
        return cpuFallback;
    }

    private void finish(Session session) {
        if (session.done) {
            return;
        }
        session.done = true;
        current = null;
        FullHttpResponse response;
        try {
            stopQuietly();
            ProfileRequest request = session.request;
            // Allocation and lock profiles weigh stacks by bytes and by time waited, not by sample count.
            boolean weighted = request.event() == ProfileRequest.Event.ALLOC
                    || request.event() == ProfileRequest.Event.LOCK;
            String counter = weighted ? ",total" : "";
            String output = profiler.execute((request.html() ? "flamegraph,title=larder-" + session.engine
                    : "collapsed") + counter);
            response = AdminResponses.body(HttpResponseStatus.OK, request.html() ? HTML : AdminResponses.TEXT,
                    Unpooled.wrappedBuffer(output.getBytes(UTF_8)));
            response.headers()
                    .set(EVENT_HEADER, request.event().name)
                    .set(ENGINE_HEADER, engineName(session))
                    .setInt("X-Profile-Seconds", request.seconds());
            if (session.fallback != null) {
                response.headers().set(FALLBACK_HEADER, session.fallback);
            }
        } catch (Exception e) {
            response = AdminResponses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "profile dump failed: "
                    + oneLine(e));
        }
        finishWith(session.ctx, response);
    }

    private static String engineName(Session session) {
        return session.fallback != null ? "itimer"
                : session.request.event() == ProfileRequest.Event.CPU ? "perf_events" : session.engine;
    }

    /** The client went away mid-profile: stop sampling now rather than at the end. */
    private void abandon(Session session) {
        if (session.done) {
            return;
        }
        session.done = true;
        current = null;
        session.timer.cancel(false);
        stopQuietly();
        running.set(false);
    }

    private void stopQuietly() {
        try {
            profiler.execute("stop");
        } catch (Exception e) {
            // Not active any more (stopped from elsewhere): the dump still holds what was sampled.
        }
    }

    private void finishWith(ChannelHandlerContext ctx, FullHttpResponse response) {
        running.set(false);
        answer(ctx, response);
    }

    private static void answer(ChannelHandlerContext ctx, FullHttpResponse response) {
        ctx.writeAndFlush(response);
        ctx.channel().config().setAutoRead(true);
    }

    private static String oneLine(Throwable e) {
        String message = e.getMessage() != null ? e.getMessage() : e.toString();
        return message.replaceAll("[\\r\\n]+", " ").trim();
    }

    /** Stops a running profile (its client gets no answer: the admin listener is gone by now) and the thread. */
    @Override
    public void close() {
        try {
            thread.submit(() -> {
                if (current != null) {
                    abandon(current);
                }
            }).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | java.util.concurrent.RejectedExecutionException e) {
            log.warn("stopping the profiler failed: {}", e.toString());
        }
        thread.shutdownNow();
    }

    /** One profile in progress; profiler thread only. */
    private static final class Session {
        final ChannelHandlerContext ctx;
        final ProfileRequest request;
        final String engine;
        final String fallback;
        ScheduledFuture<?> timer;
        boolean done;

        Session(ChannelHandlerContext ctx, ProfileRequest request, String engine, String fallback) {
            this.ctx = ctx;
            this.request = request;
            this.engine = engine;
            this.fallback = fallback;
        }
    }
}
