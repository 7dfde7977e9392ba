package dev.larder.cli.deploy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/** External programs the deployment tests run (nginx, promtool): .ci/run installs them on a fresh machine. */
final class Tools {

    private Tools() {
    }

    /**
     * The executable {@code name} from PATH or {@code extraDirs} (nginx lives in /usr/sbin, often not on a user's
     * PATH). Missing, it fails the test in CI and skips it elsewhere, naming the Debian package to install.
     */
    static Path require(String name, String debianPackage, String... extraDirs) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of(extraDirs));
        for (String dir : dirs) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        String message = name + " is not installed (apt-get install " + debianPackage + "; .ci/run does this)";
        if (Repo.inCi()) {
            throw new AssertionError(message + ": CI must run this test, not skip it");
        }
        Assumptions.abort(message);
        throw new AssertionError("unreachable");
    }
}
