package dev.larder.server.admin;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 *
 * <p>{@link #warmUp} runs one short profile before the server opens, so the first profile asked for during a load
 * run does not pay async-profiler's once-per-process start-up on the core the requests need.
 */
public final class ProfileEndpoint implements AdminEndpoint, AutoCloseable {

    static final String EVENT_HEADER = "X-Profile-Event";
    static final String ENGINE_HEADER = "X-Profile-Engine";
    static final String FALLBACK_HEADER = "X-Profile-Fallback";
    static final String HTML = "text/html; charset=utf-8";
    // Header names as AsciiString, the type every other header name in this process has. With String names, C2's
    // code of Netty's header hashing and validation was made not entrant at the first profile's answer; no run
    // measured this apart from the answer's thread (docs/performance.md, "Session 51").
    private static final AsciiString EVENT_NAME = AsciiString.cached(EVENT_HEADER);
    private static final AsciiString ENGINE_NAME = AsciiString.cached(ENGINE_HEADER);
    private static final AsciiString FALLBACK_NAME = AsciiString.cached(FALLBACK_HEADER);
    private static final AsciiString SECONDS_NAME = AsciiString.cached("X-Profile-Seconds");

    private static final Logger log = LoggerFactory.getLogger(ProfileEndpoint.class);

    /** How long {@link #warmUp} samples: long enough for samples to dump, short enough not to delay the start. */
    static final Duration WARM_UP_SAMPLING = Duration.ofMillis(200);

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

    /**
     * Loads the profiler and profiles this process for {@link #WARM_UP_SAMPLING}, throwing the result away; returns
     * what happened, in one line for the startup log. Waits at most {@code timeout}: a warm-up still going then
     * finishes on the profiler thread, ahead of any profile asked for.
     *
     * <p>async-profiler's first start in a process (its set-up, which parses the loaded libraries' symbols) took
     * about 0.2 s of the profiler thread's CPU, which on a one-core server came out of the event loop's share in the
     * first second of the first profile of a load run (docs/performance.md, "Session 51").
     */
    public String warmUp(Duration timeout) {
        Future<String> warmUp;
        try {
            warmUp = thread.submit(this::warmUpNow);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return "profiler not warmed up: closed";
        }
        try {
            return warmUp.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return "profiler still warming up after " + timeout.toMillis() + " ms; it goes on in the background";
        } catch (ExecutionException e) {
            return "profiler warm-up failed: " + oneLine(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "profiler warm-up interrupted";
        }
    }

    private String warmUpNow() throws Exception {
        long started = System.nanoTime();
        if (!load()) {
            return "profiler warm-up: profiling unavailable: " + unavailable;
        }
        String event = cpuFallback() == null ? "cpu" : "itimer";
        try {
            profiler.execute("start,event=" + event);
        } catch (IllegalStateException e) {
            return "profiler not warmed up, busy: " + oneLine(e);
        }
        try {
            Thread.sleep(WARM_UP_SAMPLING.toMillis());
        } finally {
            stopQuietly();
        }
        profiler.execute("collapsed");
        return "profiler warmed up (" + event + ") in " + (System.nanoTime() - started) / 1_000_000 + " ms";
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
        FullHttpResponse response = null;
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
                    .set(EVENT_NAME, request.event().name)
                    .set(ENGINE_NAME, engineName(session))
                    .setInt(SECONDS_NAME, request.seconds());
            if (session.fallback != null) {
                response.headers().set(FALLBACK_NAME, session.fallback);
            }
        } catch (Exception e) {
            if (response != null) {
                response.release();
            }
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

    /**
     * Writes on the channel's own event loop, like every other admin answer. Written from the profiler thread, Netty
     * took the branch of its write and read paths that hands the call over to the loop, which no data-port request
     * takes, and C2 threw away the data port's compiled write and read paths to recompile them with it: with the
     * server on one core, 200-300 ms of C2 at the end of the first profile, and a first {@code larder bench --profile}
     * at 30k GET/s with a second at max 100-245 ms (docs/performance.md, "Session 51").
     */
    private static void answer(ChannelHandlerContext ctx, FullHttpResponse response) {
        try {
            ctx.executor().execute(() -> {
                ctx.writeAndFlush(response);
                ctx.channel().config().setAutoRead(true);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // The admin listener has stopped: nobody is left to answer.
            response.release();
        }
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
