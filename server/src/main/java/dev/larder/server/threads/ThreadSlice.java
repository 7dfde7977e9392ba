package dev.larder.server.threads;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An EEVDF custom time slice (Linux 6.12+: {@code sched_attr.sched_runtime} of a {@code SCHED_OTHER} thread), and
 * optionally a nice value to run it at, which a thread sets on itself when it starts. The slice is how long EEVDF lets
 * a thread run before it may hand the core to another with an earlier deadline, and how long a running thread is
 * protected from one that wakes; which value serves a server's tail best is a measurement (docs/performance.md,
 * "Session 22": none better than the kernel's here). Nice sets the thread's weight: how much of the core it gets
 * against the others, and so how soon its deadline comes.
 *
 * <p>Or, instead of a slice, {@code SCHED_FIFO} at the lowest real-time priority ({@link #of(Duration, boolean)}): such
 * a thread takes the core from any fair thread the moment it wakes and keeps it until it blocks.
 *
 * <p>Where the call is refused (another OS or CPU, an older kernel, a seccomp filter) the thread keeps the kernel's
 * slice and its own nice, and one warning is logged; nothing else depends on it.
 */
public final class ThreadSlice {

    /** The lowest real-time priority: above every fair thread, below the kernel's own real-time threads. */
    private static final int FIFO_PRIORITY = 1;
    private static final int KEEP_NICE = Integer.MIN_VALUE;

    /** Leave the kernel's own slice alone. */
    public static final ThreadSlice KERNEL_DEFAULT = new ThreadSlice(Duration.ZERO, KEEP_NICE, false);
    private static final ThreadSlice FIFO = new ThreadSlice(Duration.ZERO, KEEP_NICE, true);

    private static final Logger log = LoggerFactory.getLogger(ThreadSlice.class);

    private final Duration slice;
    private final int nice;
    private final boolean fifo;
    private final AtomicBoolean warned = new AtomicBoolean();

    private ThreadSlice(Duration slice, int nice, boolean fifo) {
        this.slice = slice;
        this.nice = nice;
        this.fifo = fifo;
    }

    /** {@code slice} of zero means the kernel's default; the kernel clamps others to 0.1-100 ms. */
    public static ThreadSlice of(Duration slice) {
        return slice.isZero() ? KERNEL_DEFAULT : new ThreadSlice(slice, KEEP_NICE, false);
    }

    /** {@code SCHED_FIFO} at priority 1 when {@code fifo}, else {@link #of(Duration) of(slice)}. */
    public static ThreadSlice of(Duration slice, boolean fifo) {
        if (fifo && !slice.isZero()) {
            throw new IllegalArgumentException("a SCHED_FIFO thread has no slice: " + slice);
        }
        return fifo ? FIFO : of(slice);
    }

    /**
     * This slice at nice {@code nice} (0-19), or at the thread's own nice where that is higher: a thread without
     * {@code CAP_SYS_NICE} may not raise its priority, and a server started under {@code nice} keeps that.
     */
    public ThreadSlice atNice(int nice) {
        if (nice < 0 || nice > ThreadNice.MAX) {
            throw new IllegalArgumentException("nice: " + nice + " (expected: 0.." + ThreadNice.MAX + ")");
        }
        if (fifo) {
            throw new IllegalStateException("a SCHED_FIFO thread has no nice value");
        }
        return new ThreadSlice(slice, nice, false);
    }

    public Duration slice() {
        return slice;
    }

    /** Whether applying it changes nothing: the kernel's slice at the thread's own nice. */
    public boolean isKernelDefault() {
        return slice.isZero() && nice == KEEP_NICE && !fifo;
    }

    /**
     * Sets this slice on the calling thread, keeping its nice value and policy ({@code SCHED_OTHER}), or puts it in
     * {@code SCHED_FIFO}.
     *
     * @return whether the kernel took it (always true for {@link #KERNEL_DEFAULT}, which does nothing)
     */
    public boolean applyToCurrentThread() {
        if (isKernelDefault()) {
            return true;
        }
        try {
            if (fifo) {
                SchedSetattr.fifoOnCurrentThread(FIFO_PRIORITY);
            } else {
                SchedSetattr.onCurrentThread(slice.toNanos(), nice);
            }
            return true;
        } catch (LastErrorException e) {
            warnOnce("the kernel refused it (errno " + e.getErrorCode() + ")");
        } catch (UnsupportedOperationException | LinkageError e) {
            warnOnce(e.getMessage());
        }
        return false;
    }

    private void warnOnce(String why) {
        if (warned.compareAndSet(false, true)) {
            log.warn("cannot set {} on {} and its like, keeping the kernel's: {}",
                    this, Thread.currentThread().getName(), why);
        }
    }

    @Override
    public String toString() {
        if (fifo) {
            return "SCHED_FIFO priority " + FIFO_PRIORITY;
        }
        String length = slice.isZero() ? "kernel default" : slice.toNanos() / 1000 + " us";
        return nice == KEEP_NICE ? length : length + " at nice " + nice;
    }

    /** {@code sched_setattr(2)} through libc's {@code syscall}, which glibc does not wrap. */
    private static final class SchedSetattr {
        private static final int SCHED_OTHER = 0;
        private static final int SCHED_FIFO = 1;
        // struct sched_attr, version 1 (SCHED_ATTR_SIZE_VER1): size, policy, flags, nice, priority, runtime,
        // deadline, period, util_min, util_max.
        private static final int SIZE = 56;
        private static final long NUMBER = syscallNumber();

        interface LibC extends Library {
            LibC INSTANCE = Native.load("c", LibC.class);

            long syscall(long number, Object... args) throws LastErrorException;
        }

        /** {@code runtimeNanos} 0 is the kernel's slice; {@code nice} {@link #KEEP_NICE} the thread's own. */
        static void onCurrentThread(long runtimeNanos, int nice) {
            requireSyscall();
            // The call sets nice too, and 0 would undo a renice; who = 0 is the calling thread, not the process.
            int own = ThreadNice.of(ThreadNice.CURRENT);
            setattr(SCHED_OTHER, nice == KEEP_NICE ? own : Math.max(own, nice), 0, runtimeNanos);
        }

        static void fifoOnCurrentThread(int priority) {
            requireSyscall();
            setattr(SCHED_FIFO, 0, priority, 0);
        }

        /** One {@code sched_attr} on the calling thread (who = 0 is the thread, not the process). */
        private static void setattr(int policy, int nice, int priority, long runtimeNanos) {
            try (Memory attr = new Memory(SIZE)) {
                attr.clear();
                attr.setInt(0, SIZE);
                attr.setInt(4, policy);
                attr.setInt(16, nice);
                attr.setInt(20, priority);
                attr.setLong(24, runtimeNanos);
                LibC.INSTANCE.syscall(NUMBER, 0, attr, 0);
            }
        }

        private static void requireSyscall() {
            if (NUMBER < 0) {
                throw new UnsupportedOperationException("no sched_setattr on " + System.getProperty("os.name")
                        + "/" + System.getProperty("os.arch"));
            }
        }

        private static long syscallNumber() {
            if (!System.getProperty("os.name", "").startsWith("Linux")) {
                return -1;
            }
            return switch (System.getProperty("os.arch", "")) {
                case "amd64", "x86_64" -> 314;
                case "aarch64" -> 274;
                default -> -1;
            };
        }
    }
}
