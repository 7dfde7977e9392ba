package dev.larder.server.config;

/**
 * How an event loop waits out its {@code --io-coalesce} window ({@code --io-coalesce-wait}).
 */
public enum CoalesceWait {
    /**
     * It sleeps. Cheapest when the core has other work, but the core may halt meanwhile, and on a virtual machine a
     * halted core comes back with cold caches and through the hypervisor: at a fixed rate a request then still costs
     * 1.1-1.3x what it costs at saturation.
     */
    PARK("park"),
    /**
     * It spins, so the core stays awake and the next window's requests run back to back as at saturation; while the
     * store's flushes, compactions and table reads work it sleeps through half of its waiting time, so they get the
     * core's spare time in whole windows (a loop at nice 0 that spun through all of it would leave a nice-19 flush
     * about 1.5% of the core).
     */
    SPIN("spin");

    private final String flag;

    CoalesceWait(String flag) {
        this.flag = flag;
    }

    public String flag() {
        return flag;
    }
}
