package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class BackgroundWorkTest {

    private static String metrics(int running, long pending) {
        return "# HELP larder_rocksdb_compactions_running Compactions running\n"
                + "larder_rocksdb_compactions_running_total_bogus 7\n"
                + "larder_rocksdb_compactions_running " + running + ".0\n"
                + "larder_rocksdb_compaction_pending_bytes{db=\"main\"} " + pending + ".0\n";
    }

    @Test
    void readsOnlyTheSampleOfTheExactName() {
        String text = metrics(2, 1024);
        assertEquals(OptionalDouble.of(2), BackgroundWork.value(text, "larder_rocksdb_compactions_running"));
        assertEquals(OptionalDouble.of(1024), BackgroundWork.value(text, "larder_rocksdb_compaction_pending_bytes"));
        assertEquals(OptionalDouble.empty(), BackgroundWork.value(text, "larder_rocksdb_compactions"));
    }

    @Test
    void waitsUntilNothingRunsOrIsPending() {
        ArrayDeque<String> answers = new ArrayDeque<>(List.of(metrics(1, 0), metrics(0, 4096), metrics(0, 0)));
        Optional<Duration> waited = new BackgroundWork(() -> Optional.of(answers.isEmpty() ? metrics(9, 9)
                : answers.poll())).awaitQuiet(Duration.ofSeconds(30));
        assertTrue(answers.isEmpty(), "stopped polling early");
        assertTrue(waited.orElseThrow().toMillis() >= 400, waited.toString());
    }

    @Test
    void givesUpAtTheLimitAndSaysNothingForServersWithoutTheseMetrics() {
        Optional<Duration> busy = new BackgroundWork(() -> Optional.of(metrics(1, 1)))
                .awaitQuiet(Duration.ofMillis(500));
        assertTrue(busy.orElseThrow().toMillis() >= 500 && busy.get().toMillis() < 5_000, busy.toString());
        assertEquals(Optional.empty(), new BackgroundWork(Optional::empty).awaitQuiet(Duration.ofSeconds(5)));
        assertEquals(Optional.empty(), new BackgroundWork(() -> Optional.of("nginx_up 1\n"))
                .awaitQuiet(Duration.ofSeconds(5)));
    }
}
