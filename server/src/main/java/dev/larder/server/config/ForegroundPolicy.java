package dev.larder.server.config;

/**
 * The Linux scheduling policy the event loops and the workers run under ({@code --foreground-policy}).
 */
public enum ForegroundPolicy {
    /** {@code SCHED_OTHER}, like every other thread: the kernel shares the core by weight (nice). */
    FAIR("fair"),
    /**
     * {@code SCHED_FIFO} at the lowest real-time priority (1): a loop or worker that wakes takes the core at once from
     * any fair thread (RocksDB's flushes and compactions, the JIT, the collector's helpers), where a fair thread keeps
     * it to the end of its slice or the next tick. Those threads run only while the foreground sleeps, and the kernel
     * keeps 5% of each second for them ({@code sched_rt_runtime_us}). Needs {@code CAP_SYS_NICE} or an
     * {@code RLIMIT_RTPRIO} of at least 1; where refused the threads stay fair and one warning is logged.
     */
    FIFO("fifo");

    private final String flag;

    ForegroundPolicy(String flag) {
        this.flag = flag;
    }

    public String flag() {
        return flag;
    }
}
