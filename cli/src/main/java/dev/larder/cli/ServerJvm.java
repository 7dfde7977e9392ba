package dev.larder.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM flags a server runs with, which {@code java -jar} cannot carry inside the jar: the README's command and the
 * image pass them, and so do the servers that {@code bench} and {@code tune} start.
 *
 * <p>No uncommon traps: by default C2 compiles a branch or a type its profile never saw as a trap, and when one is
 * taken (a workload switch, the first cache miss after a compaction, a request kind the phase had not sent) the
 * method is thrown away, runs interpreted and is compiled again. On a server pinned to one core the C2 thread then
 * took 14-31% of it for a second or two, and every such second was a p99 of 80-210 ms at a fixed rate. With both
 * limits at 0 C2 compiles those paths as ordinary slow paths instead (docs/performance.md, "Session 18").
 */
public final class ServerJvm {

    public static final List<String> JIT_FLAGS = List.of("-XX:PerMethodTrapLimit=0", "-XX:PerBytecodeTrapLimit=0");

    private ServerJvm() {
    }

    /** {@code java <JIT flags> -cp <this class path> dev.larder.cli.Larder}: from the fat jar and from classes. */
    static List<String> command() {
        return command(List.of());
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
