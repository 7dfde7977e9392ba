package dev.larder.server.http;

import dev.larder.server.config.CoalesceWait;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * An event loop's I/O handler that, when the loop has no task left and would block for I/O, first waits for the
 * window a {@link WakeupCoalescer} gives ({@code --io-coalesce}). Whatever arrives meanwhile (requests, workers'
 * answers) is handled in one iteration, back to back, as at saturation. Nothing is lost by the wait: a worker's
 * wake-up of the loop still lands in the loop's ring (io_uring) or descriptor (epoll) and ends the blocking wait that
 * follows at once.
 *
 * <p>How it waits ({@code --io-coalesce-wait}): it sleeps, or it spins, sharing its waiting time with the store's
 * background while that works ({@link SpinShare}). On a virtual machine a core that halts in the sleep comes back
 * cold: at 60k GET/s a request cost the server 12.9-14.1 us of CPU with the sleep, 11.6-12.8 us with the spin (about
 * its cost at saturation; the spin itself not counted) and 15.0-16.1 us without coalescing (docs/performance.md,
 * "Session 90").
 */
public final class CoalescingIoHandler extends ForwardingIoHandler {
    private final WakeupCoalescer coalescer;
    /** Null when the loop sleeps through its windows. */
    private final SpinShare spinShare;
    private final LongAdder spunNanos;

    private CoalescingIoHandler(IoHandler delegate, long windowNanos, SpinShare spinShare, LongAdder spunNanos) {
        super(delegate);
        this.coalescer = new WakeupCoalescer(windowNanos, System.nanoTime());
        this.spinShare = spinShare;
        this.spunNanos = spunNanos;
    }

    /**
     * {@code handlers} itself for a zero window, else handlers that coalesce wake-ups over {@code window}, waiting
     * as {@code wait} says; {@code backgroundBusy} tells a spinning loop when to sleep through some windows instead
     * ({@link SpinShare}; it is asked on the loop's thread and must not block); every loop adds the nanoseconds it
     * spins to {@code spunNanos}.
     */
    public static IoHandlerFactory factory(IoHandlerFactory handlers, Duration window, CoalesceWait wait,
            BooleanSupplier backgroundBusy, LongAdder spunNanos) {
        if (window.isZero()) {
            return handlers;
        }
        long windowNanos = window.toNanos();
        return wrapping(handlers, handler -> {
            SpinShare share = wait == CoalesceWait.SPIN ? new SpinShare(new BackgroundCheck(backgroundBusy)) : null;
            return new CoalescingIoHandler(handler, windowNanos, share, spunNanos);
        });
    }

    @Override
    public int run(IoHandlerContext context) {
        long ioStart = System.nanoTime();
        if (context.canBlock()) {
            long wait = coalescer.waitBeforeBlocking(ioStart, context.delayNanos(ioStart));
            if (wait > 0) {
                long waitStart = ioStart;
                boolean spin = spinShare != null && spinShare.spin(waitStart, wait);
                if (spin) {
                    spinUntil(waitStart + wait);
                } else {
                    LockSupport.parkNanos(wait);
                }
                ioStart = System.nanoTime();
                if (spin) {
                    spunNanos.add(ioStart - waitStart);
                }
            }
        }
        int handled = delegate.run(context);
        coalescer.ran(ioStart, System.nanoTime());
        return handled;
    }

    /** Busy-waits until {@code deadline}, a {@link System#nanoTime()} value. */
    private static void spinUntil(long deadline) {
        while (System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
    }
}
