package dev.larder.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Keeps the code of this JVM's samplers out of C2 (HotSpot compiler directives, added at run time through the
 * {@code DiagnosticCommand} MBean, as {@code jcmd <pid> Compiler.directives_add} would): C1 still compiles it.
 *
 * <p>Why: a sampler reads {@code /proc} five times a second, so C2 compiles its loop only after minutes, in the middle of
 * a measured run, and that compilation (74-96 ms) took half the generator's core. In every tail round one second of
 * the second PUT phase was over 10 ms (16-30 ms): the one in which C2 compiled {@code LowerPriorityThreads.ticks}
 * (logged with {@code -Xlog:jit+compilation}); kept out of C2, those seconds were 2-6 ms like their neighbours
 * (docs/performance.md, "Session 54"). A sampler does not need C2's speed: five short readings a second.
 */
final class CompilerDirectives {

    private static final Set<String> EXCLUDED = new HashSet<>();

    private CompilerDirectives() {
    }

    /**
     * Keeps every method of {@code classes} and of their nested classes out of C2 from now on; false when this JVM
     * has no such command (not HotSpot) or refused it. Each class is added once per JVM.
     */
    static synchronized boolean keepOutOfC2(Collection<Class<?>> classes) {
        Set<String> patterns = classes.stream().map(c -> c.getName().replace('.', '/') + "*.*")
                .filter(p -> !EXCLUDED.contains(p)).collect(Collectors.toCollection(HashSet::new));
        if (patterns.isEmpty()) {
            return true;
        }
        String match = patterns.stream().map(p -> "\"" + p + "\"").collect(Collectors.joining(", "));
        Path file = null;
        try {
            file = Files.createTempFile("larder-directives", ".json");
            Files.writeString(file, "[{ match: [" + match + "], c2: { Exclude: true } }]");
            // HotSpot answers "<n> compiler directives added", or a parse error without the word (or nothing).
            if (!DiagnosticCommand.ask("compilerDirectivesAdd", file.toString()).contains("added")) {
                return false;
            }
            EXCLUDED.addAll(patterns);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    // A temporary file left behind; the directive is in the JVM already.
                }
            }
        }
    }
}
