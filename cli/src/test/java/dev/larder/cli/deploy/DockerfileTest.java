package dev.larder.cli.deploy;

import dev.larder.cli.ServerJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What can be checked of the image without building it (in every build, engine or not): its base images, stages,
 * user, volume, JVM flags and entrypoint, and that .dockerignore keeps out what it should and nothing the build
 * copies. ImageEntrypointIT runs the entrypoint and the health check on this machine's JVM; ImageContainerIT runs
 * the built image.
 */
class DockerfileTest {

    private final Dockerfile dockerfile = Dockerfile.parse(Repo.text("Dockerfile"));
    private final List<Dockerfile.Instruction> runtime = dockerfile.finalStage();
    private final Map<String, String> env = Dockerfile.env(runtime);

    @Test
    void baseImagesAreBuildArgsDefaultingToPublicImages() {
        assertTrue(dockerfile.stages().size() >= 2, "multi-stage: build, then runtime");
        Map<String, String> args = dockerfile.globalArgs();
        assertEquals("${BUILD_IMAGE} AS build", Dockerfile.single(dockerfile.stages().get(0), "FROM"));
        assertEquals("${RUNTIME_IMAGE}", Dockerfile.single(runtime, "FROM"));
        Matcher image = Pattern.compile("maven:(\\d+\\.\\d+\\.\\d+)-eclipse-temurin-(\\d+)")
                .matcher(String.valueOf(args.get("BUILD_IMAGE")));
        assertTrue(image.matches(), "BUILD_IMAGE default: " + args.get("BUILD_IMAGE"));
        Matcher wrapper = Pattern.compile("apache-maven-(\\d+\\.\\d+\\.\\d+)-bin")
                .matcher(Repo.text(".mvn/wrapper/maven-wrapper.properties"));
        assertTrue(wrapper.find());
        assertEquals(wrapper.group(1), image.group(1), "the public build image's Maven is the one ./mvnw uses");
        assertTrue(Integer.parseInt(image.group(2)) >= 17);
        assertTrue(String.valueOf(args.get("RUNTIME_IMAGE")).matches("debian:[a-z]+-slim"), args.toString());
        // A `# syntax=` directive makes BuildKit pull a frontend image: no registry, no build.
        assertTrue(Repo.text("Dockerfile").lines().takeWhile(l -> l.startsWith("#"))
                .noneMatch(l -> l.replace(" ", "").toLowerCase(java.util.Locale.ROOT).startsWith("#syntax=")));
    }

    @Test
    void offlineBasesAreTheOnesTheBuildScriptPasses() {
        String bases = Repo.text("deploy/docker/make-bases.sh");
        String build = Repo.text("deploy/docker/build-images.sh");
        for (String arg : List.of("BUILD_IMAGE=larder-base/build:", "RUNTIME_IMAGE=larder-base/runtime:",
                "BASE_IMAGE=larder-base/services:")) {
            assertTrue(build.contains("--build-arg " + arg), "build-images.sh --offline passes " + arg);
            String name = arg.substring(arg.indexOf('=') + 1);
            assertTrue(bases.contains("make " + name), "make-bases.sh makes " + name);
        }
        assertTrue(dockerfile.globalArgs().containsKey("BUILD_IMAGE")
                && dockerfile.globalArgs().containsKey("RUNTIME_IMAGE"));
        for (String service : List.of("deploy/prometheus/Dockerfile", "deploy/nginx/Dockerfile")) {
            Dockerfile file = Dockerfile.parse(Repo.text(service));
            assertEquals("${BASE_IMAGE}", Dockerfile.single(file.finalStage(), "FROM"), service);
            assertTrue(String.valueOf(file.globalArgs().get("BASE_IMAGE")).matches("debian:[a-z]+-slim"), service);
        }
    }

    @Test
    void buildStageRunsTheReadmesBuildForThisPlatformAndJlinksARuntime() {
        List<Dockerfile.Instruction> build = dockerfile.stages().get(0);
        String readmeBuild = firstMatch(Repo.text("README.md"), "\\./mvnw (-q -DskipTests package)");
        List<String> runs = Dockerfile.all(build, "RUN");
        assertTrue(runs.stream().anyMatch(run -> run.contains(" mvn ") && run.contains("-q")
                        && run.contains(readmeBuild.replace("-q ", "").replace(" package", ""))
                        && run.contains("-Pimage") && run.endsWith(" package")),
                "the build stage runs the README's build with the image profile: " + runs);
        assertTrue(Repo.text("cli/pom.xml").contains("<id>image</id>"), "cli/pom.xml has the image profile");
        assertTrue(runs.stream().anyMatch(run -> run.startsWith("jlink ") && run.contains("jdeps ")
                && run.contains("--output /opt/java")), "a jlink'd runtime from jdeps' module list: " + runs);
        List<String> copies = Dockerfile.all(runtime, "COPY");
        assertTrue(copies.contains("--from=build /src/cli/target/larder.jar /app/larder.jar"), copies.toString());
        assertTrue(copies.contains("--from=build /opt/java /opt/java"), copies.toString());
    }

    @Test
    void runtimeRunsTheJlinkedJava() {
        assertTrue(env.get("PATH").startsWith("/opt/java/bin:"), env.get("PATH"));
        assertEquals("/opt/java", env.get("JAVA_HOME"));
    }

    @Test
    void runsAsANumericNonRootUserThatOwnsTheDataVolume() {
        String user = Dockerfile.single(runtime, "USER");
        Matcher ids = Pattern.compile("(\\d+):(\\d+)").matcher(user);
        assertTrue(ids.matches(), "USER must be numeric uid:gid, got " + user);
        assertNotEquals("0", ids.group(1));
        assertEquals("/data", env.get("LARDER_DATA_DIR"));
        assertEquals("/data", Dockerfile.single(runtime, "VOLUME"));
        assertTrue(Dockerfile.all(runtime, "RUN").stream()
                .anyMatch(run -> run.contains("chown " + user + " /data")), "/data must belong to " + user);
        // The USER comes before the entrypoint runs, and after every RUN that needs root.
        List<String> keywords = runtime.stream().map(Dockerfile.Instruction::keyword).toList();
        assertTrue(keywords.lastIndexOf("RUN") < keywords.indexOf("USER"));
    }

    @Test
    void entrypointIsExecFormJavaOnAllInterfaces() {
        assertEquals(List.of("java", "-jar", "/app/larder.jar", "serve"),
                Dockerfile.execForm(Dockerfile.single(runtime, "ENTRYPOINT")));
        assertEquals("0.0.0.0", env.get("LARDER_HOST"));
        assertEquals("8080", env.get("LARDER_PORT"));
        assertEquals("8081", env.get("LARDER_ADMIN_PORT"));
        List<String> exposed = Dockerfile.words(Dockerfile.single(runtime, "EXPOSE"));
        assertEquals(List.of(env.get("LARDER_PORT"), env.get("LARDER_ADMIN_PORT")), exposed);
        assertEquals("SIGTERM", Dockerfile.single(runtime, "STOPSIGNAL"));
    }

    @Test
    void jvmFlagsLeaveRoomOffHeapAndExitOnOutOfMemory() {
        List<String> flags = Dockerfile.words(env.get("JDK_JAVA_OPTIONS"));
        assertTrue(flags.contains("-XX:+ExitOnOutOfMemoryError"), flags.toString());
        assertTrue(flags.stream().noneMatch(f -> f.startsWith("-Xmx") || f.startsWith("-XX:MaxHeapSize")),
                "a fixed heap ignores the container's limit: " + flags);
        double percentage = flags.stream().filter(f -> f.startsWith("-XX:MaxRAMPercentage="))
                .mapToDouble(f -> Double.parseDouble(f.substring(f.indexOf('=') + 1))).findFirst()
                .orElseThrow(() -> new AssertionError("no -XX:MaxRAMPercentage: " + flags));
        // RocksDB's block cache and memtables, Netty's direct buffers and the JVM's own native memory live
        // outside the heap: at least half the limit stays for them.
        assertTrue(percentage > 0 && percentage <= 50, "MaxRAMPercentage " + percentage);
        assertTrue(flags.stream().anyMatch(f -> f.startsWith("-Djava.io.tmpdir=/")), flags.toString());
        assertTrue(flags.containsAll(ServerJvm.JIT_FLAGS), "the image runs without " + ServerJvm.JIT_FLAGS);
    }

    @Test
    void healthcheckRunsTheRepositoryScriptWithinDockersStopTimeout() {
        String healthcheck = Dockerfile.single(runtime, "HEALTHCHECK");
        List<String> command = Dockerfile.execForm(healthcheck.substring(healthcheck.indexOf("CMD ") + 4));
        assertEquals(List.of("/app/healthcheck.sh"), command);
        assertTrue(Dockerfile.all(runtime, "COPY").contains("--chmod=0755 deploy/docker/healthcheck.sh /app/healthcheck.sh"));
        assertTrue(Files.isRegularFile(Repo.file("deploy/docker/healthcheck.sh")));
        assertTrue(healthcheck.contains("--timeout=") && healthcheck.contains("--start-period="), healthcheck);
    }

    @Test
    void dockerignoreKeepsBuildOutputAndDataOutButNothingTheBuildCopies() {
        List<String> patterns = Repo.text(".dockerignore").lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertTrue(ignored(patterns, "cli/target/larder.jar"), "build output must stay out of the context");
        assertTrue(ignored(patterns, "server/target/classes/x.class"));
        assertTrue(ignored(patterns, "data/000001.log"), "a local ./data directory must stay out of the context");
        assertTrue(ignored(patterns, ".git/HEAD"));

        List<String> sources = new ArrayList<>();
        for (List<Dockerfile.Instruction> stage : dockerfile.stages()) {
            for (String copy : Dockerfile.all(stage, "COPY")) {
                List<String> words = Dockerfile.words(copy);
                if (words.stream().anyMatch(w -> w.startsWith("--from="))) {
                    continue;
                }
                words.stream().filter(w -> !w.startsWith("--")).limit(words.stream()
                        .filter(w -> !w.startsWith("--")).count() - 1).forEach(sources::add);
            }
        }
        assertFalse(sources.isEmpty());
        for (String source : sources) {
            String path = source.endsWith("/") ? source.substring(0, source.length() - 1) : source;
            assertTrue(Files.exists(Repo.file(path)), "COPY source " + source + " does not exist");
            assertFalse(ignored(patterns, path), ".dockerignore excludes " + source + ", which the Dockerfile copies");
            if (Files.isDirectory(Repo.file(path))) {
                assertFalse(ignored(patterns, path + "/pom.xml"), source);
                assertFalse(ignored(patterns, path + "/src/main/java/X.java"), source);
            }
        }
    }

    /**
     * .dockerignore semantics that matter here: a pattern is a glob from the context root ({@code **} any number of
     * directories); a match on a directory excludes everything in it; a later {@code !pattern} re-includes.
     */
    private static boolean ignored(List<String> patterns, String path) {
        boolean ignored = false;
        for (String raw : patterns) {
            boolean negate = raw.startsWith("!");
            String pattern = negate ? raw.substring(1) : raw;
            pattern = pattern.replaceAll("^/+|/+$", "");
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
            PathMatcher topLevel = pattern.startsWith("**/")
                    ? FileSystems.getDefault().getPathMatcher("glob:" + pattern.substring(3)) : null;
            for (Path prefix = Path.of(path); prefix != null; prefix = prefix.getParent()) {
                if (matcher.matches(prefix) || (topLevel != null && topLevel.matches(prefix))) {
                    ignored = !negate;
                    break;
                }
            }
        }
        return ignored;
    }

    private static String firstMatch(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), regex);
        return m.group(1);
    }
}
