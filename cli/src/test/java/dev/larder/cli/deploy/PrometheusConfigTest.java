package dev.larder.cli.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus configuration docker-compose.yml mounts passes {@code promtool check config}. */
class PrometheusConfigTest {

    private static final String CONFIG = "deploy/prometheus/prometheus.yml";

    @TempDir
    Path dir;

    @Test
    void promtoolAcceptsTheComposeConfiguration() throws Exception {
        Path promtool = Tools.require("promtool", "prometheus");
        Result check = check(promtool, Repo.file(CONFIG));
        assertEquals(0, check.status, check.output);
        assertTrue(check.output.contains("SUCCESS"), check.output);
    }

    /** promtool really checks: the same file with a bad duration is refused. */
    @Test
    void promtoolRejectsABrokenCopy() throws Exception {
        Path promtool = Tools.require("promtool", "prometheus");
        String broken = Repo.text(CONFIG).replace("scrape_interval: 15s", "scrape_interval: fifteen");
        Path copy = dir.resolve("prometheus.yml");
        Files.writeString(copy, broken, StandardCharsets.UTF_8);
        Result check = check(promtool, copy);
        assertNotEquals(0, check.status, check.output);
    }

    private static Result check(Path promtool, Path config) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(promtool.toString(), "check", "config", config.toString())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        return new Result(process.exitValue(), output);
    }

    private record Result(int status, String output) {
    }
}
