package dev.larder.cli.powercut;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Whether this machine can run powercutfs: {@code /dev/fuse}, {@code fusermount3} (Debian fuse3) and pyfuse3 for
 * {@code /usr/bin/python3} (Debian python3-pyfuse3). Missing, the power-cut tests fail in CI ({@code CI=true}, where
 * .ci/run installs them) and are skipped, with the reason, on a workstation.
 */
final class Fuse {

    private static String missing;
    private static boolean checked;

    private Fuse() {
    }

    static synchronized void require() throws InterruptedException {
        if (!checked) {
            missing = probe();
            checked = true;
        }
        if (missing == null) {
            return;
        }
        String message = "powercutfs cannot run here: " + missing
                + " (apt-get install fuse3 python3-pyfuse3; .ci/run does this)";
        if (inCi()) {
            throw new AssertionError(message + ": CI must run the power-cut tests, not skip them");
        }
        Assumptions.abort(message);
    }

    private static String probe() throws InterruptedException {
        if (!Files.exists(Path.of("/dev/fuse"))) {
            return "no /dev/fuse";
        }
        if (!Files.isExecutable(Path.of("/usr/bin/fusermount3")) && !Files.isExecutable(Path.of("/bin/fusermount3"))) {
            return "no fusermount3";
        }
        try {
            Process p = new ProcessBuilder(PowerCutFs.PYTHON, "-c", "import pyfuse3, trio").redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return PowerCutFs.PYTHON + " cannot import pyfuse3: " + out.strip();
            }
        } catch (IOException e) {
            return "cannot run " + PowerCutFs.PYTHON + ": " + e.getMessage();
        }
        return null;
    }

    static boolean inCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isEmpty() && !ci.equalsIgnoreCase("false");
    }
}
