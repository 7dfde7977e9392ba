package dev.larder.cli;

import dev.larder.bench.DiagnosticCommand;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Which methods the JIT has compiled at its top tier, as HotSpot's {@code Compiler.codelist} diagnostic command lists
 * them (what {@code jcmd <pid> Compiler.codelist} prints, asked of this JVM through its own MBean server). A warm-up
 * that only counts requests cannot tell whether C2 has got to a path yet: its thresholds grow with C2's queue, which
 * a warm-up keeps long, and a path that was still C1 code at the start was compiled by C2 in the middle of the first
 * load that needed it (docs/performance.md, "Session 42").
 */
final class CompiledCode {

    /** HotSpot's top tier (C2). */
    static final int TOP_TIER = 4;
    /** {@code Compiler.codelist}'s state of code that new calls enter ({@code nmethod::in_use}). */
    private static final int IN_USE = 0;

    private final Supplier<String> codelist;
    private final Supplier<String> queue;

    private CompiledCode(Supplier<String> codelist, Supplier<String> queue) {
        this.codelist = codelist;
        this.queue = queue;
    }

    /** This JVM's code (none listed when the JVM has no such commands: then nothing is waited for). */
    static CompiledCode ofThisJvm() {
        return new CompiledCode(() -> DiagnosticCommand.ask("compilerCodelist"),
                () -> DiagnosticCommand.ask("compilerQueue"));
    }

    /** {@code codelist} and {@code queue} in the formats of {@code Compiler.codelist} and {@code Compiler.queue}. */
    static CompiledCode of(Supplier<String> codelist, Supplier<String> queue) {
        return new CompiledCode(codelist, queue);
    }

    /**
     * Whether C2 has nothing to do: no compilation running and none queued. When the JVM does not say, it counts as
     * idle.
     */
    boolean topTierIdle() {
        boolean queued = false;
        for (String line : queue.get().split("\n")) {
            String text = line.trim();
            if (text.endsWith("compile queue:") || text.startsWith("Current compiles:")) {
                queued = text.startsWith("C2 ");
            } else if (text.startsWith("C2 CompilerThread") && text.split("\\s+").length > 2) {
                return false;
            } else if (queued && !text.isEmpty() && !text.equals("Empty")) {
                return false;
            }
        }
        return true;
    }

    /**
     * The methods of {@code methods} ({@code package.Class.method}, nested classes with {@code $}) that have no
     * top-tier code in use yet; none when there is no code list to read, since then there is nothing to wait for.
     */
    Set<String> notAtTopTier(Collection<String> methods) {
        String list = codelist.get();
        if (list.isBlank()) {
            return Set.of();
        }
        Set<String> missing = new HashSet<>(methods);
        for (String line : list.split("\n")) {
            // "<compile id> <tier> <state> <class.method>(<signature>)<return> [<addresses>]"
            String[] fields = line.trim().split(" ", 4);
            if (fields.length < 4) {
                continue;
            }
            int paren = fields[3].indexOf('(');
            if (paren < 0) {
                continue;
            }
            try {
                if (Integer.parseInt(fields[1]) == TOP_TIER && Integer.parseInt(fields[2]) == IN_USE) {
                    missing.remove(fields[3].substring(0, paren));
                }
            } catch (NumberFormatException e) {
                // Not a code line.
            }
        }
        return missing;
    }
}
