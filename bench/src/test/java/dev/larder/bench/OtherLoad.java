package dev.larder.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much of this machine's CPU time went to processes other than this JVM over a span: {@code /proc/stat}'s busy
 * ticks ({@link HostSteal#parse}) less this process's own CPU time. A timing test that shares two cores with another
 * busy process (Maven building the server module beside this one) gets scheduled in bursts of milliseconds, and then
 * measures the scheduler, not the code it tests.
 */
final class OtherLoad {

    private final long busyTicks;
    private final long totalTicks;
    private final long ownCpuNanos;

    private OtherLoad(long busyTicks, long totalTicks, long ownCpuNanos) {
        this.busyTicks = busyTicks;
        this.totalTicks = totalTicks;
        this.ownCpuNanos = ownCpuNanos;
    }

    /** A reading now; one whose shares are all NaN where {@code /proc/stat} or this process's CPU cannot be read. */
    static OtherLoad now() {
        long own = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        HostSteal.Sample machine = null;
        try {
            machine = HostSteal.parse(System.nanoTime(), Files.readString(Path.of("/proc/stat")));
        } catch (IOException | RuntimeException e) {
            // Unknown below.
        }
        return machine == null ? new OtherLoad(-1, -1, -1) : new OtherLoad(machine.busy(), machine.total(), own);
    }

    /** The share (0-1) of the machine's CPU time that other processes used since {@code start}; NaN unknown. */
    double othersShareSince(OtherLoad start) {
        if (start.totalTicks < 0 || totalTicks <= start.totalTicks || start.ownCpuNanos < 0 || ownCpuNanos < 0) {
            return Double.NaN;
        }
        double busyNanos = ProcessCpuTime.ticksToNanos(busyTicks - start.busyTicks);
        double others = busyNanos - (ownCpuNanos - start.ownCpuNanos);
        return Math.max(0, others / ProcessCpuTime.ticksToNanos(totalTicks - start.totalTicks));
    }
}
