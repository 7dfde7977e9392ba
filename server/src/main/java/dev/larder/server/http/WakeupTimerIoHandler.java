package dev.larder.server.http;

import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An io_uring event loop's I/O handler that blocks with no deadline and has a thread of its own wake it when its next
 * scheduled task is due.
 *
 * <p>Why: Netty's io_uring handler bounds every blocking wait by its loop's next scheduled task, and it does so with a
 * timeout request in the ring ({@code IORING_OP_TIMEOUT} with a completion count of 1), one per wait. A loop always
 * has a next task (every connection's timeout check; without any, Netty's purge a second away), so at a fixed rate,
 * where the loop blocks between most requests, that was 0.68 timeout requests per GET at 30k/s, each armed as a
 * kernel timer, cancelled by the next completion and answered with a completion of its own: 4.9% of a GET's CPU
 * (docs/performance.md, "Session 101"). The scheduled tasks here are second-long checks; the deadline they need
 * changes about as often as they run, so a thread that sleeps until it and then writes the loop's wake-up descriptor
 * costs a few wake-ups a second instead of one timer per wait.
 */
public final class WakeupTimerIoHandler extends ForwardingIoHandler {
    /** No wake-up pending. */
    private static final long NONE = Long.MAX_VALUE;
    /** Keeps {@code now + delay} from overflowing; a loop asked to wake this late is woken early and asks again. */
    private static final long MAX_DELAY_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** When ({@link System#nanoTime()}) the timer thread wakes the loop; {@link #NONE} when nothing is pending. */
    private final AtomicLong wakeAt = new AtomicLong(NONE);
    private final UntimedContext untimed = new UntimedContext();
    private final Thread timer;
    private volatile boolean destroyed;

    private WakeupTimerIoHandler(IoHandler delegate) {
        super(delegate);
        this.timer = new Thread(this::runTimer, "larder-loop-timer-" + THREADS.incrementAndGet());
        this.timer.setDaemon(true);
    }

    /** Handlers from {@code handlers}, each blocking without a deadline and woken by a timer thread of its own. */
    public static IoHandlerFactory factory(IoHandlerFactory handlers) {
        return wrapping(handlers, WakeupTimerIoHandler::new);
    }

    @Override
    public int run(IoHandlerContext context) {
        if (!context.canBlock()) {
            return delegate.run(context);
        }
        long now = System.nanoTime();
        wakeNoLaterThan(now + Math.min(context.delayNanos(now), MAX_DELAY_NANOS));
        untimed.context = context;
        return delegate.run(untimed);
    }

    /**
     * Makes the timer wake the loop at {@code due} unless it will already do so earlier: a later pending wake-up is
     * moved forward, an earlier one is kept (the loop then wakes early, finds nothing due, and asks again).
     */
    private void wakeNoLaterThan(long due) {
        while (true) {
            long pending = wakeAt.get();
            if (pending != NONE && pending - due <= 0) {
                return;
            }
            if (wakeAt.compareAndSet(pending, due)) {
                LockSupport.unpark(timer);
                return;
            }
        }
    }

    private void runTimer() {
        while (!destroyed) {
            long at = wakeAt.get();
            if (at == NONE) {
                LockSupport.park(this);
                continue;
            }
            long delay = at - System.nanoTime();
            if (delay > 0) {
                LockSupport.parkNanos(this, delay);
                continue;
            }
            // Cleared before the wake-up, so a deadline the loop sets meanwhile is kept for the next round.
            if (wakeAt.compareAndSet(at, NONE)) {
                delegate.wakeup();
            }
        }
    }

    @Override
    public void initialize() {
        timer.start();
        delegate.initialize();
    }

    @Override
    public void destroy() {
        destroyed = true;
        LockSupport.unpark(timer);
        try {
            timer.join(TimeUnit.SECONDS.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        delegate.destroy();
    }

    /** The loop's context with no deadline, so the delegate blocks until a completion (the timer's is one). */
    private static final class UntimedContext implements IoHandlerContext {
        IoHandlerContext context;

        @Override
        public boolean canBlock() {
            return context.canBlock();
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return context.delayNanos(currentTimeNanos);
        }

        @Override
        public long deadlineNanos() {
            return -1;
        }

        @Override
        public void reportActiveIoTime(long activeNanos) {
            context.reportActiveIoTime(activeNanos);
        }

        @Override
        public boolean shouldReportActiveIoTime() {
            return context.shouldReportActiveIoTime();
        }
    }
}
