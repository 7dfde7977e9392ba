package dev.larder.server.http;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * An event loop's I/O handler that, when the loop has no task left and would block for I/O, first sleeps for the
 * window a {@link WakeupCoalescer} gives ({@code --io-coalesce}). Whatever arrives meanwhile (requests, workers'
 * answers) is handled in one iteration. Nothing is lost by the sleep: a worker's wake-up of the loop still lands
 * in the loop's ring (io_uring) or descriptor (epoll) and ends the blocking wait that follows at once.
 */
public final class CoalescingIoHandler implements IoHandler {
    private final IoHandler delegate;
    private final WakeupCoalescer coalescer;

    private CoalescingIoHandler(IoHandler delegate, long windowNanos) {
        this.delegate = delegate;
        this.coalescer = new WakeupCoalescer(windowNanos, System.nanoTime());
    }

    /** {@code handlers} itself for a zero window, else handlers that coalesce wake-ups over {@code window}. */
    public static IoHandlerFactory factory(IoHandlerFactory handlers, Duration window) {
        if (window.isZero()) {
            return handlers;
        }
        long windowNanos = window.toNanos();
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(ThreadAwareExecutor executor) {
                return new CoalescingIoHandler(handlers.newHandler(executor), windowNanos);
            }

            @Override
            public boolean isChangingThreadSupported() {
                return handlers.isChangingThreadSupported();
            }
        };
    }

    @Override
    public int run(IoHandlerContext context) {
        long ioStart = System.nanoTime();
        if (context.canBlock()) {
            long wait = coalescer.waitBeforeBlocking(ioStart, context.delayNanos(ioStart));
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                ioStart = System.nanoTime();
            }
        }
        int handled = delegate.run(context);
        coalescer.ran(ioStart, System.nanoTime());
        return handled;
    }

    @Override
    public void initialize() {
        delegate.initialize();
    }

    @Override
    public void prepareToDestroy() {
        delegate.prepareToDestroy();
    }

    @Override
    public void destroy() {
        delegate.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        return delegate.register(handle);
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return delegate.isCompatible(handleType);
    }
}
