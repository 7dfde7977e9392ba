package dev.larder.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/**
 * Whether this JVM's C2 compiles unseen paths as traps: {@code off} with {@code -XX:PerMethodTrapLimit=0
 * -XX:PerBytecodeTrapLimit=0} (the flags Larder's servers and its generators run with), else {@code jvm-default}.
 * With traps on, a workload switch deoptimises whatever path it first takes, on the server or in the generator.
 */
public final class UncommonTraps {

    private UncommonTraps() {
    }

    /** {@code off}, {@code jvm-default}, or {@code unknown} where the HotSpot options cannot be read. */
    public static String ofThisJvm() {
        try {
            HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            boolean off = "0".equals(hotSpot.getVMOption("PerMethodTrapLimit").getValue())
                    && "0".equals(hotSpot.getVMOption("PerBytecodeTrapLimit").getValue());
            return off ? "off" : "jvm-default";
        } catch (RuntimeException e) {
            return "unknown";
        }
    }
}
