package dev.larder.server.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads certificates and token files when they change on disk (checked every {@code interval}) or when asked
 * ({@link #reloadAll()}, on SIGHUP). Polling, not a {@code WatchService}: Kubernetes and cert-manager replace
 * mounted secrets by swapping a symlink, which directory watches miss. A reload that fails is logged and the
 * files loaded before stay in use, so a half-written certificate never takes the listener down.
 */
public final class SecurityReloader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SecurityReloader.class);

    private final List<Reloadable> targets;
    private final Map<Reloadable, List<Object>> lastSeen = new HashMap<>();
    private final ScheduledExecutorService timer;

    private SecurityReloader(List<Reloadable> targets, Duration interval) {
        this.targets = List.copyOf(targets);
        for (Reloadable target : this.targets) {
            lastSeen.put(target, stamps(target));
        }
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "larder-security-reload");
            thread.setDaemon(true);
            return thread;
        });
        if (!this.targets.isEmpty()) {
            long millis = interval.toMillis();
            timer.scheduleWithFixedDelay(this::reloadChanged, millis, millis, TimeUnit.MILLISECONDS);
        }
    }

    /** Starts watching {@code targets}. */
    public static SecurityReloader start(List<Reloadable> targets, Duration interval) {
        return new SecurityReloader(targets, interval);
    }

    /** Reloads everything now, on the reloader's thread (safe to call from a signal handler). */
    public void reloadAll() {
        timer.execute(() -> {
            for (Reloadable target : targets) {
                reload(target, "reload requested");
            }
        });
    }

    private void reloadChanged() {
        for (Reloadable target : targets) {
            if (!Objects.equals(lastSeen.get(target), stamps(target))) {
                reload(target, "changed on disk");
            }
        }
    }

    private void reload(Reloadable target, String why) {
        lastSeen.put(target, stamps(target));
        try {
            target.reload();
            log.info("reloaded {} ({})", target.files(), why);
        } catch (RuntimeException e) {
            log.error("cannot reload {} ({}), still serving what was loaded before: {}", target.files(), why,
                    e.getMessage());
        }
    }

    // Modification time, size and file key of each file, following symlinks: any of them changes on a rewrite.
    private static List<Object> stamps(Reloadable target) {
        List<Object> stamps = new ArrayList<>();
        for (Path file : target.files()) {
            try {
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                stamps.add(attributes.lastModifiedTime());
                stamps.add(attributes.size());
                stamps.add(attributes.fileKey());
            } catch (IOException e) {
                stamps.add("missing");
            }
        }
        return stamps;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
