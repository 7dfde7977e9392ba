package dev.larder.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM flags a server runs with, which {@code java -jar} cannot carry inside the jar: the README's command passes
 * them, and so do the servers that {@code bench} and {@code tune} start. The image passes the JIT flags only: its
 * heap is G1's, 40% of the container's memory, where a 1 GiB young generation does not fit.
 *
 * <p>No uncommon traps: by default C2 compiles a branch or a type its profile never saw as a trap, and when one is
 * taken (a workload switch, the first cache miss after a compaction, a request kind the phase had not sent) the
 * method is thrown away, runs interpreted and is compiled again. On a server pinned to one core the C2 thread then
 * took 14-31% of it for a second or two, and every such second was a p99 of 80-210 ms at a fixed rate. With both
 * limits at 0 C2 compiles those paths as ordinary slow paths instead (docs/performance.md, "Session 18").
 */
public final class ServerJvm {

    public static final List<String> JIT_FLAGS = List.of("-XX:PerMethodTrapLimit=0", "-XX:PerBytecodeTrapLimit=0");

    /**
     * The server's young generation: 1 GiB. With the JVM's default on this machine (a third of the initial heap, about
     * 128 MiB) a request's 1 KiB of garbage made a collection every 0.7-1.4 s at the rates, 138-147 of them
     * in a phase run, whose safepoints stretched to 2-12 ms 4-11 times a run while other threads held the one core;
     * with 1 GiB, 14-19 (docs/performance.md, "Session 35"). {@code serve} collects once after start-up so that
     * what it keeps is not copied by every young collection for minutes, and an object that survives two young
     * collections (12 s or more apart at these rates: a connection, a pool) is promoted then rather than after 15:
     * the 1-2 MiB that serving keeps alive from its first minute made each of the first 15 collections pause 3.7-5
     * ms instead of 0.8-1 (docs/performance.md, "Session 36"). Not for the generator, whose JVM {@link GeneratorJvm}
     * starts with {@link #command(List)} and a young generation of its own ({@link GeneratorJvm#HEAP_FLAGS}).
     *
     * <p>The old generation starts at 256 MiB ({@code -XX:OldSize}). The JVM's default beside a 1 GiB young generation
     * is 6 MiB, and the serial collector follows every young collection that had to grow the old generation to fit
     * what it promoted with a full collection of the whole heap: every few minutes at the rates, a 16-17 ms
     * young pause and a 33-37 ms full one back to back inside a phase (p99 53.5 ms that second; docs/performance.md,
     * "Session 98"). Serving promoted about 12 KiB a second in those phases (2.2 MiB over 24 young collections), so
     * 256 MiB lasts hours. It is committed at start, but a page costs memory only once promotion reaches it.
     */
    public static final List<String> HEAP_FLAGS = List.of("-Xmn1g", "-XX:OldSize=256m", "-XX:MaxTenuringThreshold=2");

    private ServerJvm() {
    }

    /**
     * {@code java <heap flags> <JIT flags> -cp <this class path> dev.larder.cli.Larder}: the servers {@code bench}
     * and {@code tune} start, from the fat jar and from classes.
     */
    static List<String> serverCommand() {
        return command(HEAP_FLAGS);
    }

    /** {@code java <options> <JIT flags> -cp <this class path> dev.larder.cli.Larder}, a list the caller may extend. */
    static List<String> command(List<String> options) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.addAll(JIT_FLAGS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Larder.class.getName()));
        return command;
    }
}
