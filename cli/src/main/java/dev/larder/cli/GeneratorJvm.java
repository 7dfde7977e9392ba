package dev.larder.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The JVM {@code bench} and {@code tune} generate load from gets the server's JIT flags too
 * ({@link ServerJvm#JIT_FLAGS}). Started without them, as {@code java -jar larder.jar bench ...} in every command of
 * the docs, the command runs itself again in a child JVM that has them: this JVM's other options, the same standard
 * streams, its exit status.
 *
 * <p>Why: with uncommon traps on, C2 compiled the generator's paths for what it had seen so far. At the switch from the
 * closed-loop capacities to the first fixed-rate phase it threw away the generator's send path, and at the first PUT to
 * GET switch its read path; each ran interpreted for about 100 ms while C2 compiled it again, and the run counted the
 * generator's lateness as the server's latency in the first second of those phases (docs/performance.md, "Session
 * 33"). The flags cannot be set from inside a running JVM, hence the child.
 */
final class GeneratorJvm {

    /** In the child's environment, and the way to run in the JVM one started: set, the command never relaunches. */
    static final String RELAUNCHED = "LARDER_GENERATOR_RELAUNCHED";

    private static final Set<String> GENERATORS = Set.of("bench", "tune");
    /** How long a child, sent SIGTERM when this JVM is stopped, may take to stop the servers it started. */
    private static final long STOP_SECONDS = 30;

    private GeneratorJvm() {
    }

    /** Whether {@code args} name a generator that must run again: this JVM traps ({@code uncommonTraps}), no opt-out. */
    static boolean shouldRelaunch(String[] args, Map<String, String> environment, String uncommonTraps) {
        return args.length > 0 && GENERATORS.contains(args[0]) && !"off".equals(uncommonTraps)
                && !environment.containsKey(RELAUNCHED);
    }

    /**
     * {@code java <jvmOptions without trap limits> <JIT flags> -cp <this class path> dev.larder.cli.Larder <args>}.
     * Options from {@code JDK_JAVA_OPTIONS} are left out of {@code jvmOptions} by the caller: the child reads that
     * variable again.
     */
    static List<String> command(String[] args, List<String> jvmOptions) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String option : jvmOptions) {
            if (!option.startsWith("-XX:PerMethodTrapLimit=") && !option.startsWith("-XX:PerBytecodeTrapLimit=")) {
                command.add(option);
            }
        }
        command.addAll(ServerJvm.JIT_FLAGS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Larder.class.getName()));
        command.addAll(Arrays.asList(args));
        return command;
    }

    /**
     * Runs {@code args} in a child JVM with the JIT flags and waits for it; its exit status, or empty when it could
     * not be started (the caller then runs the command in this JVM, after a line on stderr saying so).
     */
    static OptionalInt relaunch(String[] args) {
        ProcessBuilder builder = new ProcessBuilder(command(args, thisJvmsOptions())).inheritIO();
        builder.environment().put(RELAUNCHED, "1");
        Process child;
        try {
            child = builder.start();
        } catch (IOException e) {
            System.err.println("larder: could not start a JVM with " + String.join(" ", ServerJvm.JIT_FLAGS) + " ("
                    + e.getMessage() + "); running in this one, where a workload switch can deoptimise the generator");
            return OptionalInt.empty();
        }
        // SIGTERM to this JVM: pass it on, and give the child time to stop the servers it started.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(child), "larder-generator-stop"));
        while (true) {
            try {
                return OptionalInt.of(child.waitFor());
            } catch (InterruptedException e) {
                // Only the exit of the child ends this wait.
            }
        }
    }

    private static List<String> thisJvmsOptions() {
        List<String> fromEnvironment = tokens(System.getenv("JDK_JAVA_OPTIONS"));
        List<String> options = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
        for (String option : fromEnvironment) {
            options.remove(option);
        }
        return options;
    }

    private static List<String> tokens(String value) {
        return value == null || value.isBlank() ? List.of() : Arrays.asList(value.trim().split("\\s+"));
    }

    private static void stop(Process child) {
        if (!child.isAlive()) {
            return;
        }
        child.destroy();
        try {
            if (!child.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
