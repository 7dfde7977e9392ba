package dev.larder.server.threads;

import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Netty's daemon thread factory, whose threads set a {@link ThreadSlice} on themselves before they run anything.
 * Set once, from the thread itself: re-applying a slice re-queues the thread, and doing it from outside every
 * second put every second of a write phase over 10 ms (docs/performance.md, "Session 21").
 */
public final class SlicedThreadFactory extends DefaultThreadFactory {

    private final ThreadSlice slice;

    public SlicedThreadFactory(String poolName, ThreadSlice slice) {
        super(poolName, true);
        this.slice = slice;
    }

    @Override
    protected Thread newThread(Runnable task, String name) {
        if (slice.isKernelDefault()) {
            return super.newThread(task, name);
        }
        return super.newThread(() -> {
            slice.applyToCurrentThread();
            task.run();
        }, name);
    }
}
