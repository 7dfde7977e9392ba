package dev.larder.server.admin;

import java.io.IOException;

/**
 * The in-process profiler as {@link ProfileEndpoint} drives it: async-profiler's command interface
 * ({@code start,event=cpu}, {@code stop}, {@code flamegraph}, {@code collapsed}, {@code check,event=...}). An
 * interface so the endpoint's decisions (fallback, busy, failures) can be tested without the native library.
 */
@FunctionalInterface
public interface Profiler {

    /**
     * Runs one command and returns its output.
     *
     * @throws IllegalStateException when the profiler refuses in its current state (already running, not active,
     *                               event unavailable)
     */
    String execute(String command) throws IOException;
}
