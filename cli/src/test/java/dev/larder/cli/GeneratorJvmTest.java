package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When {@code bench} and {@code tune} run themselves again with the JIT flags, and with which options. */
class GeneratorJvmTest {

    private static final Map<String, String> NO_ENV = Map.of();
    /** A heap with room for the generator's whole young generation (a quarter of a 16 GiB machine). */
    private static final long ROOMY_HEAP = 4L << 30;

    @Test
    void theGeneratorsRelaunchFromAJvmThatTraps() {
        assertTrue(GeneratorJvm.shouldRelaunch(new String[] {"bench", "-R", "1k", "http://h/"}, NO_ENV,
                () -> "jvm-default"));
        assertTrue(GeneratorJvm.shouldRelaunch(new String[] {"tune", "--budget", "5m"}, NO_ENV, () -> "jvm-default"));
        assertTrue(GeneratorJvm.shouldRelaunch(new String[] {"bench", "tail", "http://h/"}, NO_ENV, () -> "unknown"));
    }

    @Test
    void nothingElseRelaunches() {
        // The server is started with its flags by the README, the image and the bench scripts; it says which it has.
        assertFalse(GeneratorJvm.shouldRelaunch(new String[] {"serve"}, NO_ENV, () -> "jvm-default"));
        assertFalse(GeneratorJvm.shouldRelaunch(new String[] {"--version"}, NO_ENV, () -> "jvm-default"));
        assertFalse(GeneratorJvm.shouldRelaunch(new String[0], NO_ENV, () -> "jvm-default"));
        assertFalse(GeneratorJvm.shouldRelaunch(new String[] {"bench"}, NO_ENV, () -> "off"), "already has the flags");
        assertFalse(GeneratorJvm.shouldRelaunch(new String[] {"bench"}, Map.of(GeneratorJvm.RELAUNCHED, "4242"),
                () -> "jvm-default"), "the child");
        assertFalse(GeneratorJvm.shouldRelaunch(new String[] {"bench"}, Map.of(GeneratorJvm.RELAUNCHED, "1"),
                () -> "jvm-default"), "a user who opted out");
    }

    @Test
    void theChildKeepsThisJvmsOwnOptionsButNotItsTrapLimits() {
        List<String> options = GeneratorJvm.childOptions(List.of("-Xmx256m", "-XX:PerMethodTrapLimit=100",
                "-XX:PerBytecodeTrapLimit=4", "-Dx=y"), NO_ENV);
        assertEquals(List.of("-Xmx256m", "-Dx=y"), options);
    }

    @Test
    void optionsFromTheJvmsOptionVariablesAreLeftToTheChildsOwnReading() {
        // The child inherits the environment, so its JVM reads these again: passed on too, a -agentlib or a log file
        // option would be given twice.
        Map<String, String> env = Map.of("JDK_JAVA_OPTIONS", " -Xlog:gc:file=gc-%p.log ",
                "JAVA_TOOL_OPTIONS", "-agentlib:jdwp=transport=dt_socket,server=y -Dtool=1",
                "_JAVA_OPTIONS", "-Dold=1");
        List<String> options = GeneratorJvm.childOptions(List.of("-Xlog:gc:file=gc-%p.log",
                "-agentlib:jdwp=transport=dt_socket,server=y", "-Dtool=1", "-Dold=1", "-Xmx1g"), env);
        assertEquals(List.of("-Xmx1g"), options);
    }

    @Test
    void theChildsCommandHasTheFlagsOnceAndTheArgumentsLast() {
        List<String> command = ServerJvm.command(List.of("-Xmx256m"));
        command.addAll(List.of("bench", "-R", "1k"));
        assertTrue(command.get(0).endsWith("/bin/java"), command.toString());
        assertEquals("-Xmx256m", command.get(1), command.toString());
        assertEquals(ServerJvm.JIT_FLAGS, command.subList(2, 2 + ServerJvm.JIT_FLAGS.size()), command.toString());
        assertEquals(List.of("-cp", System.getProperty("java.class.path"), Larder.class.getName(), "bench", "-R",
                "1k"), command.subList(command.size() - 6, command.size()), command.toString());
    }

    @Test
    void serversGetTheirHeapFlagsAndTheGeneratorItsOwnYoungGeneration() {
        List<String> server = ServerJvm.serverCommand();
        assertEquals(ServerJvm.HEAP_FLAGS, server.subList(1, 1 + ServerJvm.HEAP_FLAGS.size()), server.toString());
        assertTrue(server.containsAll(ServerJvm.JIT_FLAGS), server.toString());
        List<String> generator = GeneratorJvm.childCommand(List.of(), Map.of(), new String[] {"bench"}, ROOMY_HEAP);
        assertEquals(GeneratorJvm.HEAP_FLAGS, generator.subList(1, 1 + GeneratorJvm.HEAP_FLAGS.size()),
                generator.toString());
        assertTrue(generator.containsAll(ServerJvm.JIT_FLAGS), generator.toString());
        // Promotion after two collections is for the server's connections and pools, not the generator's.
        assertFalse(generator.contains("-XX:MaxTenuringThreshold=2"), generator.toString());
        assertEquals("bench", generator.get(generator.size() - 1), generator.toString());
    }

    @Test
    void aYoungGenerationGivenToThisJvmWinsOverTheGenerators() {
        List<String> generator = GeneratorJvm.childCommand(List.of("-Xmn256m"), Map.of(), new String[] {"bench"},
                ROOMY_HEAP);
        // The JVM takes the last of two -Xmn.
        assertTrue(generator.lastIndexOf("-Xmn256m") > generator.indexOf("-Xmn2g"), generator.toString());
    }

    @Test
    void aHeapTooSmallForTwoGibibytesOfYoungGenerationGetsHalfOfIt() {
        assertEquals(List.of("-Xmn2g"), GeneratorJvm.heapFlags(4L << 30));
        assertEquals(List.of("-Xmn1024m"), GeneratorJvm.heapFlags(2L << 30));
        assertEquals(List.of("-Xmn455m"), GeneratorJvm.heapFlags(910L << 20));
        List<String> generator = GeneratorJvm.childCommand(List.of(), Map.of(), new String[] {"bench"}, 1L << 30);
        assertEquals("-Xmn512m", generator.get(1), generator.toString());
    }
}
