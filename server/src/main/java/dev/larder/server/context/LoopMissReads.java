package dev.larder.server.context;

import dev.larder.server.config.MissReads;
import dev.larder.server.config.ServerOptions;

/**
 * Whether an event loop reads a GET the block cache missed itself ({@code --miss-reads loop}) instead of handing it
 * to a worker. Reading costs the loop the read; handing over costs it a hand-off, which on a CPU the workers share
 * with the loop is two context switches and a wake-up each way, more than a read from the page cache. Reads that
 * take longer than the bound come from a device, but so, now and then, does one during which the loop lost the CPU
 * to a background thread: only {@link #SLOW_READS} of them within a back-off send the misses to the workers again,
 * for the back-off that follows. A disk then holds the loop for at most that many reads a back-off, not for every
 * miss. Shared by the server's loops; a race between two of them costs at most a read or a count either way.
 */
public final class LoopMissReads {

    /**
     * Slow reads within a back-off that make it a disk's. One alone did not: in a fixed-rate run it sent a second of
     * misses to the workers at the switch from PUT to GET (3,269 worker runs in that second), a background thread's
     * slice being the likelier cause than a disk whose files had just been written (docs/performance.md, "Session 59").
     */
    public static final int SLOW_READS = 8;

    private final boolean enabled;
    private final long boundNanos;
    private final long backoffNanos;
    private volatile boolean slowSeen;
    private volatile long slowAt;
    private volatile long countingSince;
    private volatile int slowCounted;

    LoopMissReads(boolean enabled, long boundNanos, long backoffNanos) {
        this.enabled = enabled;
        this.boundNanos = boundNanos;
        this.backoffNanos = backoffNanos;
    }

    /** What {@code options} ask for on a process that may run on {@code cpus} CPUs; never with the sync mode's. */
    public static LoopMissReads of(ServerOptions options, int cpus) {
        boolean loop = options.workers() > 0
                && options.missReads().resolve(cpus, options.ioThreads()) == MissReads.LOOP;
        return new LoopMissReads(loop, ServerOptions.MISS_READ_BOUND.toNanos(),
                ServerOptions.MISS_READ_BACKOFF.toNanos());
    }

    /** Whether {@code --miss-reads} resolved to the loop (the start-up line says so). */
    public boolean enabled() {
        return enabled;
    }

    /** Whether a loop may read a miss at {@code now} ({@link System#nanoTime()}). */
    public boolean mayRead(long now) {
        return enabled && (!slowSeen || now - slowAt >= backoffNanos);
    }

    /**
     * A loop's read of a miss took {@code nanos}, ending at {@code now}; {@code true} when that was slow (whether or
     * not it was the one that made the loop back off).
     */
    public boolean took(long nanos, long now) {
        if (nanos <= boundNanos) {
            return false;
        }
        if (slowCounted == 0 || now - countingSince >= backoffNanos) {
            countingSince = now;
            slowCounted = 0;
        }
        if (++slowCounted >= SLOW_READS) {
            slowAt = now;
            slowSeen = true;
            slowCounted = 0;
        }
        return true;
    }
}
