package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When {@code bench} and {@code tune} run themselves again with the JIT flags, and the command they run. */
class GeneratorJvmTest {

    private static final Map<String, String> NO_ENV = Map.of();

    @Test
    void theGeneratorsRelaunchFromAJvmThatTraps() {
        assertTrue(GeneratorJvm.shouldRelaunch(new String[] {"bench", "-R", "1k", "http://h/"}, NO_ENV, "jvm-default"));
        assertTrue(GeneratorJvm.shouldRelaunch(new String[] {"tune", "--budget", "5m"}, NO_ENV, "jvm-default"));
        assertTrue(GeneratorJvm.shouldRelaunch(new String[] {"bench", "tail", "http://h/"}, NO_ENV, "unknown"));
    }

    @Test
    void nothingElseRelaunches() {
        // The server is started with its flags by the README, the image and the bench scripts; it says which it has.
        assertFalse(GeneratorJvm.shouldRelaunch(new String[] {"serve"}, NO_ENV, "jvm-default"));
        assertFalse(GeneratorJvm.shouldRelaunch(new String[] {"--version"}, NO_ENV, "jvm-default"));
        assertFalse(GeneratorJvm.shouldRelaunch(new String[0], NO_ENV, "jvm-default"));
        assertFalse(GeneratorJvm.shouldRelaunch(new String[] {"bench"}, NO_ENV, "off"), "already has the flags");
        assertFalse(GeneratorJvm.shouldRelaunch(new String[] {"bench"}, Map.of(GeneratorJvm.RELAUNCHED, "1"),
                "jvm-default"), "the child, or a user who opted out");
    }

    @Test
    void theChildKeepsThisJvmsOptionsAndGetsTheFlagsOnce() {
        List<String> command = GeneratorJvm.command(new String[] {"bench", "-R", "1k", "http://h/"},
                List.of("-Xmx256m", "-XX:PerMethodTrapLimit=100", "-Dx=y"));
        assertTrue(command.get(0).endsWith("/bin/java"), command.toString());
        assertEquals(List.of("-Xmx256m", "-Dx=y"), command.subList(1, 3), command.toString());
        for (String flag : ServerJvm.JIT_FLAGS) {
            assertEquals(1, Collections.frequency(command, flag), command.toString());
        }
        assertFalse(command.contains("-XX:PerMethodTrapLimit=100"), command.toString());
        assertEquals(List.of("-cp", System.getProperty("java.class.path"), Larder.class.getName(), "bench", "-R",
                "1k", "http://h/"), command.subList(command.size() - 7, command.size()), command.toString());
    }
}
