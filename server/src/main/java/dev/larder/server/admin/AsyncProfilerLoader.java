package dev.larder.server.admin;

import java.util.concurrent.Callable;
import one.profiler.AsyncProfiler;

/**
 * Loads async-profiler's native library from its jar (Linux x64/arm64, macOS) on first use: loading installs JVM
 * hooks, so a server nobody profiles never pays for it. Fails with the reason when this platform or JVM cannot
 * load it.
 */
public final class AsyncProfilerLoader implements Callable<Profiler> {

    @Override
    public Profiler call() throws Exception {
        AsyncProfiler profiler;
        try {
            profiler = AsyncProfiler.getInstance();
        } catch (LinkageError | RuntimeException e) {
            throw new IllegalStateException("async-profiler cannot load on " + System.getProperty("os.name") + "/"
                    + System.getProperty("os.arch") + ": " + e, e);
        }
        return profiler::execute;
    }
}
