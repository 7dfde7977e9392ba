package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class CompilerDirectivesTest {

    /**
     * The same work in two classes: one kept out of C2, one not. Written twice on purpose: a method that only called
     * a shared one would be trivial, and HotSpot compiles trivial methods with C1 alone, so it would prove nothing.
     */
    static final class KeptOut {
        static long work(int n) {
            long sum = 0;
            for (int i = 0; i < n; i++) {
                sum += Long.toString(i).hashCode();
            }
            return sum;
        }

        static final class Nested {
            static long work(int n) {
                return KeptOut.work(n) + 1;
            }
        }
    }

    static final class Control {
        static long work(int n) {
            long sum = 0;
            for (int i = 0; i < n; i++) {
                sum += Long.toString(i).hashCode();
            }
            return sum;
        }
    }

    /** What a sampler's readings run, for the sampler test (no code: only its name is matched). */
    static final class SamplerReading {
    }

    @Test
    void theDirectiveIsInTheJvmForTheClassAndItsNestedClasses() throws Exception {
        assertTrue(CompilerDirectives.keepOutOfC2(List.of(KeptOut.class)));
        String directives = DiagnosticCommand.ask("compilerDirectivesPrint");
        assertTrue(directives.contains("dev/larder/bench/CompilerDirectivesTest$KeptOut*.*"), directives);
        // Asked again, it is not added a second time.
        assertTrue(CompilerDirectives.keepOutOfC2(List.of(KeptOut.class)));
        String again = DiagnosticCommand.ask("compilerDirectivesPrint");
        assertEquals(count(directives, "CompilerDirectivesTest$KeptOut"), count(again, "CompilerDirectivesTest$KeptOut"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void hotCodeOfAKeptOutClassStaysInC1WhileTheSameCodeElsewhereReachesC2() throws Exception {
        assertTrue(CompilerDirectives.keepOutOfC2(List.of(KeptOut.class)));
        long sink = 0;
        // Until C2 has compiled the control: by then it would have compiled the kept-out copies, called as often.
        while (!compiledAt(4, "CompilerDirectivesTest$Control.work")) {
            for (int i = 0; i < 1000; i++) {
                sink += Control.work(100) + KeptOut.work(100) + KeptOut.Nested.work(100);
            }
        }
        assertFalse(compiledAt(4, "CompilerDirectivesTest$KeptOut.work"), "sink " + sink);
        assertFalse(compiledAt(4, "CompilerDirectivesTest$KeptOut$Nested.work"), "sink " + sink);
        assertTrue(compiledAt(1, "CompilerDirectivesTest$KeptOut.work"), "C1 still compiles it");
    }

    @Test
    void aSamplerKeepsItsReadingCodeAndItsOwnLoopOutOfC2() throws Exception {
        try (PeriodicSampler<Long> sampler = PeriodicSampler.start("test-sampler", 1000, System::nanoTime,
                List.of(SamplerReading.class))) {
            String directives = DiagnosticCommand.ask("compilerDirectivesPrint");
            assertTrue(directives.contains("dev/larder/bench/CompilerDirectivesTest$SamplerReading*.*"),
                    directives);
            assertTrue(directives.contains("dev/larder/bench/PeriodicSampler*.*"), directives);
            assertTrue(sampler.count() >= 1);
        }
    }

    /** Whether the code cache holds {@code method} compiled at {@code level} ({@code Compiler.codelist}). */
    private static boolean compiledAt(int level, String method) throws Exception {
        String list = DiagnosticCommand.ask("compilerCodelist");
        // Each line: compile id, level, state, method(signature) [addresses].
        return list.lines().map(l -> l.trim().split("\\s+")).anyMatch(f -> f.length > 3
                && f[1].equals(Integer.toString(level)) && f[3].startsWith("dev.larder.bench." + method + "("));
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
