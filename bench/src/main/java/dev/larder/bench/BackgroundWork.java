package dev.larder.bench;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Supplier;

/**
 * Waits, through the admin endpoint's metrics, until a Larder server has no compaction running or pending.
 * The tail benchmark replays its phases against nginx on the same core right after Larder's: a server still paying
 * off the phases' writes there (its threads at nice 19, but their page-cache writeback is not) inflated nginx's
 * first-phase p99 to 10-430 ms where the other phases measured 1-3 ms, and with it flattered Larder's ratio.
 */
final class BackgroundWork {

    private final Supplier<Optional<String>> metrics;

    /** @param metrics the server's {@code /metrics} text each time it is called, empty when there is none */
    BackgroundWork(Supplier<Optional<String>> metrics) {
        this.metrics = metrics;
    }

    /** {@link #awaitQuiet(Duration)} on {@code server}'s admin listener; empty when it has none. */
    static Optional<Duration> awaitQuiet(ServerHandle server, Duration limit) {
        return server.adminUrl() == null ? Optional.empty()
                : new BackgroundWork(new AdminClient(server.adminUrl())::metrics).awaitQuiet(limit);
    }

    /**
     * Polls every 200 ms until no compaction runs and none is pending, or {@code limit} passes.
     *
     * @return how long it waited, or empty when the server exposes no such metrics (not Larder, or no admin port)
     */
    Optional<Duration> awaitQuiet(Duration limit) {
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        while (true) {
            Optional<String> text = metrics.get();
            if (text.isEmpty()) {
                return Optional.empty();
            }
            OptionalDouble running = value(text.get(), "larder_rocksdb_compactions_running");
            OptionalDouble pending = value(text.get(), "larder_rocksdb_compaction_pending_bytes");
            if (running.isEmpty() || pending.isEmpty()) {
                return Optional.empty();
            }
            if ((running.getAsDouble() == 0 && pending.getAsDouble() == 0) || System.nanoTime() >= deadline) {
                return Optional.of(Duration.ofNanos(System.nanoTime() - start));
            }
            Sleep.millis(200);
        }
    }

    /** The value of an unlabelled (or first labelled) sample of {@code name} in Prometheus text. */
    static OptionalDouble value(String metrics, String name) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(name) && line.length() > name.length()
                    && (line.charAt(name.length()) == ' ' || line.charAt(name.length()) == '{')) {
                String v = line.substring(line.lastIndexOf(' ') + 1);
                try {
                    return OptionalDouble.of(Double.parseDouble(v));
                } catch (NumberFormatException e) {
                    return OptionalDouble.empty();
                }
            }
        }
        return OptionalDouble.empty();
    }
}
