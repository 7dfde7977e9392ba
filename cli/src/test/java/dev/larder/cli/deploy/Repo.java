package dev.larder.cli.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** Files at the repository root ({@code -Dlarder.repo}, set by cli/pom.xml): the deployment configuration under test. */
final class Repo {

    private Repo() {
    }

    static Path root() {
        String repo = System.getProperty("larder.repo");
        if (repo == null) {
            throw new IllegalStateException("-Dlarder.repo is not set (run through Maven)");
        }
        return Path.of(repo).toAbsolutePath().normalize();
    }

    static Path file(String relative) {
        return root().resolve(relative);
    }

    static String text(String relative) {
        try {
            return Files.readString(file(relative), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A YAML file as plain maps and lists; anchors, aliases and {@code <<} merge keys resolved. */
    static Map<String, Object> yaml(String relative) {
        return parseYaml(text(relative));
    }

    static Map<String, Object> parseYaml(String text) {
        return new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
    }

    /** Whether tools that CI installs must be present (CI=true) or their absence may skip a test (a workstation). */
    static boolean inCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isEmpty() && !ci.equalsIgnoreCase("false");
    }
}
