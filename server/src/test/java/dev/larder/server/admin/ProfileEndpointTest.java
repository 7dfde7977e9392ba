package dev.larder.server.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LeakDetection;
import dev.larder.server.config.TransportKind;
import dev.larder.server.http.Transport;
import io.netty.channel.ChannelHandlerContext;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code /debug/profile}'s decisions, over real sockets, with a scripted profiler in place of the native one. */
@ExtendWith(LeakDetection.class)
class ProfileEndpointTest {

    private final List<String> commands = new CopyOnWriteArrayList<>();
    private AdminServer admin;

    private void start(Callable<Profiler> loader) {
        serve(new ProfileEndpoint(loader));
    }

    /** An admin listener on a free port serving {@code endpoint} at /debug/profile. */
    private void serve(AdminEndpoint endpoint) {
        admin = AdminServer.start(new AdminOptions("127.0.0.1", 0), Transport.select(TransportKind.AUTO),
                Map.of("/debug/profile", endpoint));
    }

    @AfterEach
    void stop() {
        if (admin != null) {
            admin.close();
        }
    }

    private String url(String query) {
        return "http://127.0.0.1:" + admin.localAddress().getPort() + "/debug/profile" + query;
    }

    /** A profiler whose perf-events check answers {@code check}. */
    private Callable<Profiler> scripted(String check) {
        return () -> command -> {
            commands.add(command);
            if (command.startsWith("check,event=cpu-clock")) {
                if (check.equals("OK")) {
                    return "OK\n";
                }
                throw new IllegalStateException(check);
            }
            if (command.startsWith("flamegraph")) {
                return "<!DOCTYPE html><html>flame graph</html>";
            }
            if (command.startsWith("collapsed")) {
                return "main;work 7\n";
            }
            return "ok\n";
        };
    }

    @Test
    void cpuUsesPerfEventsWhereTheyArePermitted() throws Exception {
        start(scripted("OK"));
        HttpResponse<String> response = Http.get(url("?event=cpu&seconds=1"));
        assertEquals(200, response.statusCode());
        assertEquals(ProfileEndpoint.HTML, response.headers().firstValue("content-type").orElse(""));
        assertEquals("perf_events", response.headers().firstValue(ProfileEndpoint.ENGINE_HEADER).orElse(""));
        assertFalse(response.headers().firstValue(ProfileEndpoint.FALLBACK_HEADER).isPresent());
        assertTrue(commands.contains("start,event=cpu"), commands.toString());
        assertTrue(response.body().contains("flame graph"));
    }

    @Test
    void cpuFallsBackToItimerWherePerfEventsAreNotPermittedAndSaysSo() throws Exception {
        start(scripted("Perf events unavailable"));
        HttpResponse<String> response = Http.get(url("?event=cpu&seconds=1&format=collapsed"));
        assertEquals(200, response.statusCode());
        assertEquals("itimer", response.headers().firstValue(ProfileEndpoint.ENGINE_HEADER).orElse(""));
        String fallback = response.headers().firstValue(ProfileEndpoint.FALLBACK_HEADER).orElse("");
        assertTrue(fallback.startsWith("itimer") && fallback.contains("Perf events unavailable"), fallback);
        assertTrue(commands.contains("start,event=itimer"), commands.toString());
        assertFalse(commands.contains("start,event=cpu"), commands.toString());
        assertEquals("main;work 7\n", response.body());
    }

    @Test
    void allocAndLockAreWeightedByTotals() throws Exception {
        start(scripted("OK"));
        assertEquals(200, Http.get(url("?event=alloc&seconds=1")).statusCode());
        assertTrue(commands.contains("start,event=alloc"), commands.toString());
        assertTrue(commands.stream().anyMatch(c -> c.startsWith("flamegraph") && c.endsWith(",total")),
                commands.toString());
    }

    @Test
    void oneProfileAtATime() throws Exception {
        start(scripted("OK"));
        CompletableFuture<HttpResponse<String>> first = Http.client().sendAsync(
                HttpRequest.newBuilder(URI.create(url("?event=wall&seconds=2"))).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!commands.contains("start,event=wall") && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        HttpResponse<String> second = Http.get(url("?event=cpu&seconds=1"));
        assertEquals(409, second.statusCode());
        assertEquals(200, first.get(10, TimeUnit.SECONDS).statusCode());
        assertEquals(200, Http.get(url("?event=cpu&seconds=1")).statusCode());
    }

    @Test
    void unloadableLibraryIs501WithTheReason() throws Exception {
        start(() -> {
            throw new IllegalStateException("async-profiler cannot load on Plan9/mips: no library");
        });
        HttpResponse<String> response = Http.get(url("?event=cpu&seconds=1"));
        assertEquals(501, response.statusCode());
        assertTrue(response.body().contains("Plan9/mips: no library"), response.body());
        // Not stuck "running" after a failure.
        assertEquals(501, Http.get(url("?event=alloc&seconds=1")).statusCode());
    }

    /**
     * The answer comes after the profile, from the profiler's thread; it must still be written on the admin event
     * loop. From another thread Netty's write and read take a hand-over branch the data port never takes, and C2
     * recompiled the data port's write path at the end of the first profile (docs/performance.md, "Session 51").
     */
    @Test
    void theAnswerIsWrittenOnTheAdminEventLoop() throws Exception {
        List<String> writers = new CopyOnWriteArrayList<>();
        ProfileEndpoint profile = new ProfileEndpoint(scripted("OK"));
        AdminEndpoint watched = (ctx, request) -> profile.serve(watchWrites(ctx, writers), request);
        serve(watched);
        try {
            // A refusal is answered at once, on the loop: the watch sees writes.
            assertEquals(400, Http.get(url("?event=cpu&seconds=0")).statusCode());
            assertEquals(200, Http.get(url("?event=cpu&seconds=1")).statusCode());
            assertEquals(List.of("event loop", "event loop"), writers);
        } finally {
            profile.close();
        }
    }

    /** {@code ctx}, noting for each write which thread made it and whether that was its event loop. */
    private static ChannelHandlerContext watchWrites(ChannelHandlerContext ctx, List<String> writers) {
        return (ChannelHandlerContext) Proxy.newProxyInstance(ChannelHandlerContext.class.getClassLoader(),
                new Class<?>[] {ChannelHandlerContext.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("write")) {
                        writers.add(ctx.executor().inEventLoop() ? "event loop" : Thread.currentThread().getName());
                    }
                    try {
                        return method.invoke(ctx, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** What {@link ProfileEndpoint#warmUp} says with {@code loader}, on an endpoint no listener serves. */
    private static String warmUpAlone(Callable<Profiler> loader) {
        ProfileEndpoint profile = new ProfileEndpoint(loader);
        try {
            return profile.warmUp(Duration.ofSeconds(10));
        } finally {
            profile.close();
        }
    }

    @Test
    void warmUpProfilesOnceAndThrowsTheResultAway() {
        String said = warmUpAlone(scripted("OK"));
        assertTrue(said.startsWith("profiler warmed up (cpu) in "), said);
        assertEquals(List.of("check,event=cpu-clock", "start,event=cpu", "stop", "collapsed"), commands);
    }

    @Test
    void warmUpSamplesWithItimerWherePerfEventsAreNotPermitted() {
        String said = warmUpAlone(scripted("Perf events unavailable"));
        assertTrue(said.startsWith("profiler warmed up (itimer) in "), said);
        assertTrue(commands.contains("start,event=itimer"), commands.toString());
    }

    @Test
    void warmUpOfAProfilerAlreadyRunningSaysBusyAndStopsNothing() {
        String said = warmUpAlone(() -> command -> {
            commands.add(command);
            if (command.startsWith("start")) {
                throw new IllegalStateException("Profiler already started");
            }
            return "OK\n";
        });
        assertEquals("profiler not warmed up, busy: Profiler already started", said);
        assertEquals(List.of("check,event=cpu-clock", "start,event=cpu"), commands);
    }

    @Test
    void warmUpOfAClosedEndpointSaysSo() {
        ProfileEndpoint profile = new ProfileEndpoint(scripted("OK"));
        profile.close();
        assertEquals("profiler not warmed up: closed", profile.warmUp(Duration.ofSeconds(10)));
        assertTrue(commands.isEmpty(), commands.toString());
    }

    /** The server starts anyway; the warm-up finishes on the profiler thread ahead of the first profile. */
    @Test
    void aWarmUpPastItsTimeoutGoesOnAheadOfTheFirstProfile() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        Callable<Profiler> slow = scripted("OK");
        ProfileEndpoint profile = new ProfileEndpoint(() -> {
            loading.await();
            return slow.call();
        });
        try {
            assertEquals("profiler still warming up after 50 ms; it goes on in the background",
                    profile.warmUp(Duration.ofMillis(50)));
            serve(profile);
        } finally {
            if (admin == null) {
                loading.countDown();
                profile.close();
            }
        }
        CompletableFuture<HttpResponse<String>> first = Http.client().sendAsync(
                HttpRequest.newBuilder(URI.create(url("?event=cpu&seconds=1"))).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        loading.countDown();
        assertEquals(200, first.get(20, TimeUnit.SECONDS).statusCode());
        assertEquals(List.of("check,event=cpu-clock", "start,event=cpu", "stop", "collapsed"),
                commands.subList(0, 4), "the warm-up's commands come first");
        assertTrue(commands.subList(4, commands.size()).contains("start,event=cpu"), commands.toString());
    }

    @Test
    void warmUpOfAnUnloadableLibrarySaysWhyAndProfilesAre501() throws Exception {
        ProfileEndpoint profile = new ProfileEndpoint(() -> {
            throw new IllegalStateException("async-profiler cannot load on Plan9/mips: no library");
        });
        assertEquals("profiler warm-up: profiling unavailable: async-profiler cannot load on Plan9/mips: no library",
                profile.warmUp(Duration.ofSeconds(10)));
        serve(profile);
        assertEquals(501, Http.get(url("?event=cpu&seconds=1")).statusCode());
    }

    @Test
    void badParametersAre400NamingTheParameter() throws Exception {
        start(scripted("OK"));
        for (String[] bad : new String[][] {{"?event=heap&seconds=1", "event"}, {"?event=cpu&seconds=0", "seconds"},
                {"?event=cpu&seconds=301", "seconds"}, {"?event=cpu&seconds=ten", "seconds"},
                {"?event=cpu&seconds=1&format=svg", "format"}}) {
            HttpResponse<String> response = Http.get(url(bad[0]));
            assertEquals(400, response.statusCode(), bad[0]);
            assertTrue(response.body().startsWith(bad[1] + ":"), response.body());
        }
        assertTrue(commands.isEmpty(), "nothing reached the profiler: " + commands);
    }
}
