package dev.larder.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Stopping a process this JVM started: the servers {@code bench} and {@code tune} run, the generator's own JVM. */
public final class ChildProcesses {

    /** How long a process sent SIGKILL may take to be gone before we stop waiting for it. */
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    private ChildProcesses() {
    }

    /**
     * SIGTERM, up to {@code grace} for the orderly shutdown, then SIGKILL and up to 10 s for the process to be gone.
     * Interrupted, it sends SIGKILL at once and keeps the interrupt.
     */
    public static void stop(Process process, Duration grace) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILL, and up to 10 s for the process to be gone. */
    public static void kill(Process process) {
        try {
            process.destroyForcibly().waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
