package dev.larder.server.config;

/**
 * Where a GET that the block cache cannot answer is read ({@code --miss-reads}), in the async mode. The event loop
 * first tries every GET from memory (memtables and cached blocks); this is about the rest, which need a table file.
 */
public enum MissReads {
    /**
     * {@link #LOOP} when the workers have no CPU of their own (the process may use no more CPUs than it has event
     * loops), {@link #WORKERS} otherwise.
     */
    AUTO("auto"),
    /**
     * The event loop reads it itself, like the sync mode, while such reads come back fast (from the page cache);
     * after several within a second that took longer than {@code ServerOptions.MISS_READ_BOUND} (a disk) they go to
     * the workers for a while.
     */
    LOOP("loop"),
    /** A worker reads it, so a slow disk never holds the loop. */
    WORKERS("workers");

    private final String flag;

    MissReads(String flag) {
        this.flag = flag;
    }

    public String flag() {
        return flag;
    }

    /** {@link #AUTO} decided for a process that may run on {@code cpus} CPUs with {@code ioThreads} event loops. */
    public MissReads resolve(int cpus, int ioThreads) {
        if (this != AUTO) {
            return this;
        }
        return cpus <= ioThreads ? LOOP : WORKERS;
    }
}
