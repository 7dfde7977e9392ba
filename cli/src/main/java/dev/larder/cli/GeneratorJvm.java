package dev.larder.cli;

import dev.larder.bench.ChildProcesses;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Runs {@code bench} and {@code tune} in a JVM with the server's JIT flags ({@link ServerJvm#JIT_FLAGS}). Started
 * without them, as {@code java -jar larder.jar bench ...} in every command of the docs, the command runs itself again
 * in a child JVM that has them: this JVM's other options, the same standard streams, its exit status.
 *
 * <p>Why: with uncommon traps on, C2 compiled the generator's paths for what it had seen so far. At the switch from the
 * closed-loop capacities to the first fixed-rate phase it threw away the generator's send path, and at the first PUT to
 * GET switch its read path; each ran interpreted, then as C1 code, for about 170 ms until C2 had compiled it again,
 * and the run counted the generator's lateness as the server's latency in the first second of those phases
 * (docs/performance.md, "Session 33"). The flags cannot be set in a running JVM, hence the child.
 *
 * <p>The child also gets a young generation of its own size ({@link #heapFlags}).
 */
public final class GeneratorJvm {

    /** In the child's environment, and the way to run in the JVM one started: set, the command never relaunches. */
    static final String RELAUNCHED = "LARDER_GENERATOR_RELAUNCHED";

    /** The generator's young generation where the heap has room for it, in whole GiB ({@link #HEAP_FLAGS}). */
    private static final long YOUNG_BYTES = 2L << 30;

    /**
     * A 2 GiB young generation, where the heap has room for it ({@link #heapFlags}). With the JVM's default (about
     * 110 MiB on a 23 GiB machine) the generator collected every 21 s at 44k GET/s, pausing 2-5 ms each time; an
     * open-loop generator that stops charges the pause to the server as latency, and the server's core sat idle
     * through it (docs/performance.md, "Session 93"). 1 GiB did not collect in a whole {@code bench tail} run at those
     * rates ("Session 94"), but at 94-99k PUT/s the generator allocates 6.7-7.0 MB a second, and 1 GiB filled about
     * 120 s after the full collection {@code bench tail} runs before its phases: one young collection of 5-18 ms in
     * every run's second PUT phase ("Session 106"). 2 GiB lasts the phases up to about 10 MB a second. Before this
     * JVM's own options, so an {@code -Xmn} given there wins; {@code bench/lib.sh} gives its generators the same
     * ({@code ServerJvmFlagsTest}).
     */
    public static final List<String> HEAP_FLAGS = List.of("-Xmn" + (YOUNG_BYTES >> 30) + "g");

    private static final Set<String> GENERATORS = Set.of("bench", "tune");
    /** How long a child sent SIGTERM may take to stop the servers it started (theirs take up to 30 s each). */
    private static final Duration STOP_GRACE = Duration.ofSeconds(45);
    /** Variables the child's JVM reads again: their options are not passed to it a second time. */
    private static final List<String> OPTION_VARIABLES = List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS");

    private GeneratorJvm() {
    }

    /** Whether {@code args} name a generator that must run again: this JVM traps, and nobody opted out. */
    static boolean shouldRelaunch(String[] args, Map<String, String> environment, Supplier<String> uncommonTraps) {
        return args.length > 0 && GENERATORS.contains(args[0]) && !environment.containsKey(RELAUNCHED)
                && !"off".equals(uncommonTraps.get());
    }

    /**
     * The options of this JVM ({@code inputArguments}) to hand the child: without the trap limits (the child gets its
     * own) and without the options that came from {@code environment}'s option variables (the child reads those again).
     */
    static List<String> childOptions(List<String> inputArguments, Map<String, String> environment) {
        List<String> trapLimits = ServerJvm.JIT_FLAGS.stream().map(flag -> flag.substring(0, flag.indexOf('=') + 1))
                .toList();
        List<String> options = new ArrayList<>();
        for (String option : inputArguments) {
            if (trapLimits.stream().noneMatch(option::startsWith)) {
                options.add(option);
            }
        }
        for (String variable : OPTION_VARIABLES) {
            String value = environment.get(variable);
            if (value != null && !value.isBlank()) {
                for (String token : value.trim().split("\\s+")) {
                    options.remove(token);
                }
            }
        }
        return options;
    }

    /**
     * The young generation for a child whose heap may grow to {@code maxHeapBytes}: {@link #HEAP_FLAGS}, or half the
     * heap where 2 GiB is more than that. The child's default heap is this JVM's (a quarter of the machine's memory,
     * or the {@code -Xmx} it passes on), and a young generation as large as the heap leaves the old one no room: the
     * JVM shrinks it with a warning and every promotion becomes a full collection.
     */
    static List<String> heapFlags(long maxHeapBytes) {
        if (maxHeapBytes / 2 >= YOUNG_BYTES) {
            return HEAP_FLAGS;
        }
        return List.of("-Xmn" + Math.max(1, maxHeapBytes / 2 >> 20) + "m");
    }

    /**
     * The child's command: {@link #heapFlags} for a heap of {@code maxHeapBytes}, {@link #childOptions}, the JIT
     * flags, the main class, {@code args}.
     */
    static List<String> childCommand(List<String> inputArguments, Map<String, String> environment, String[] args,
                                     long maxHeapBytes) {
        List<String> options = new ArrayList<>(heapFlags(maxHeapBytes));
        options.addAll(childOptions(inputArguments, environment));
        List<String> command = ServerJvm.command(options);
        command.addAll(Arrays.asList(args));
        return command;
    }

    /**
     * Runs {@code args} in a child JVM with the JIT flags and waits for it; its exit status, or empty when it could
     * not be started (the caller then runs the command in this JVM, after a line on stderr saying so).
     */
    static OptionalInt relaunch(String[] args) {
        List<String> command = childCommand(ManagementFactory.getRuntimeMXBean().getInputArguments(),
                System.getenv(), args, Runtime.getRuntime().maxMemory());
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().put(RELAUNCHED, "1");
        Process child;
        try {
            child = builder.start();
        } catch (IOException e) {
            System.err.println("larder: could not start a JVM with " + String.join(" ", ServerJvm.JIT_FLAGS) + " ("
                    + e.getMessage() + "); running in this one, where a workload switch can deoptimise the generator");
            return OptionalInt.empty();
        }
        // A SIGTERM to this JVM goes on to the child, which stops its servers and ends; this one waits for that.
        Runtime.getRuntime().addShutdownHook(
                new Thread(() -> ChildProcesses.stop(child, STOP_GRACE), "larder-generator-stop"));
        while (true) {
            try {
                return OptionalInt.of(child.waitFor());
            } catch (InterruptedException e) {
                // Only the exit of the child ends this wait.
            }
        }
    }
}
