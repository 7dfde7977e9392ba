package dev.larder.cli.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cli.GeneratorJvm;
import dev.larder.cli.ServerJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The server's JVM flags are written in places Java cannot reach: the README's command, the bench scripts' defaults
 * and the benchmarking guide's commands. Each must give a server the flags {@code bench} and {@code tune} start theirs
 * with ({@link ServerJvm}), or a figure measured one way is quoted for a server run the other; and the scripts'
 * generator the flags a relaunched {@code bench} runs with ({@link GeneratorJvm}).
 */
class ServerJvmFlagsTest {

    private static final Set<String> SERVER_FLAGS = serverFlags();

    private static Set<String> serverFlags() {
        Set<String> flags = new LinkedHashSet<>(ServerJvm.HEAP_FLAGS);
        flags.addAll(ServerJvm.JIT_FLAGS);
        return flags;
    }

    @Test
    void theReadmesCommandRunsTheServerWithTheseFlags() {
        assertEveryServerCommandHasTheseFlags("README.md");
    }

    @Test
    void theBenchmarkingGuidesServersGetTheseFlags() {
        assertEveryServerCommandHasTheseFlags("docs/benchmarking.md");
    }

    private static void assertEveryServerCommandHasTheseFlags(String file) {
        List<Set<String>> commands = serveCommands(Repo.text(file));
        assertFalse(commands.isEmpty(), file + " has a `java ... -jar ... serve` command");
        for (Set<String> flags : commands) {
            assertEquals(SERVER_FLAGS, flags, file);
        }
    }

    @Test
    void theBenchScriptsStartServersWithTheseFlagsAndGeneratorsWithTheRelaunchedGeneratorsFlags() {
        String lib = Repo.text("bench/lib.sh");
        String jit = assignment(lib, "LARDER_JVM_OPTS");
        String server = assignment(lib, "LARDER_SERVER_JVM_OPTS").replace("$LARDER_JVM_OPTS", jit);
        String client = assignment(lib, "LARDER_CLIENT_JVM_OPTS").replace("$LARDER_JVM_OPTS", jit);
        assertEquals(Set.copyOf(ServerJvm.JIT_FLAGS), words(jit), "bench/lib.sh LARDER_JVM_OPTS");
        assertEquals(SERVER_FLAGS, words(server), "bench/lib.sh LARDER_SERVER_JVM_OPTS");
        // The scripts' generator runs without a relaunch, so it must be given what the relaunched one gets.
        Set<String> generator = new LinkedHashSet<>(GeneratorJvm.HEAP_FLAGS);
        generator.addAll(ServerJvm.JIT_FLAGS);
        assertEquals(generator, words(client), "bench/lib.sh LARDER_CLIENT_JVM_OPTS (the generator's)");
    }

    @Test
    void everyBenchScriptThatStartsALarderServerGivesItTheSharedFlags() throws IOException {
        List<Path> scripts;
        try (Stream<Path> files = Files.walk(Repo.file("bench"))) {
            scripts = files.filter(f -> f.toString().endsWith(".sh")).sorted().toList();
        }
        assertFalse(scripts.isEmpty());
        // `java <anything> -jar <jar> serve` on a line that is not a comment nor an echo
        Pattern serve = Pattern.compile("^(?!\\s*#)(?!.*\\becho\\b).*\\bjava\\b(.*?)-jar\\s+\\S+\\s+serve\\b",
                Pattern.MULTILINE);
        int starts = 0;
        for (Path script : scripts) {
            Matcher m = serve.matcher(Files.readString(script));
            while (m.find()) {
                starts++;
                String flags = m.group(1);
                assertTrue(flags.contains("LARDER_SERVER_JVM_OPTS") || flags.contains("${jvm[@]}"),
                        Repo.root().relativize(script) + " starts a server without the server's JVM flags: " + m.group());
            }
        }
        assertTrue(starts >= 1, "bench/lib.sh's larder_start starts the scripts' servers; found " + starts);
    }

    /** The flags of each {@code java <flags> -jar cli/target/larder.jar serve} in {@code text}. */
    static List<Set<String>> serveCommands(String text) {
        List<Set<String>> commands = new ArrayList<>();
        // The built jar started as a server: not `serve --help`, nor the image's /app/larder.jar (G1, sized to its
        // container: DockerfileTest).
        Matcher m = Pattern.compile("\\bjava((?:\\s+-X\\S+)*)\\s+-jar\\s+cli/target/larder\\.jar\\s+serve\\b(?!\\s+--help)")
                .matcher(text);
        while (m.find()) {
            commands.add(words(m.group(1)));
        }
        return commands;
    }

    private static String assignment(String script, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + "=\"([^\"]*)\"").matcher(script);
        if (!m.find()) {
            throw new AssertionError("bench/lib.sh sets " + name);
        }
        return m.group(1);
    }

    private static Set<String> words(String flags) {
        Set<String> set = new LinkedHashSet<>();
        for (String word : flags.trim().split("\\s+")) {
            if (!word.isEmpty()) {
                set.add(word);
            }
        }
        return set;
    }
}
