package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Each phase's write stall: the server's stall counter read at the phase boundaries, from its Prometheus text. */
class WriteStallsTest {

    private static String metrics(double stallSeconds) {
        return "# HELP larder_rocksdb_write_stall_seconds_total Time writers were stalled\n"
                + "# TYPE larder_rocksdb_write_stall_seconds_total counter\n"
                + "larder_rocksdb_write_stall_seconds_total " + stallSeconds + "\n"
                + "larder_rocksdb_write_stopped 0.0\n";
    }

    @Test
    void eachSpanIsTheCounterAtItsEndLessTheCounterAtItsStartReadAtTheBoundariesOnly() {
        double[] counter = {2.0, 2.5, 2.5, 3.25};
        AtomicInteger scrapes = new AtomicInteger();
        Instant now = Instant.now();
        // The first boundary already past (read at once), the others 50 ms apart.
        List<Instant> boundaries = List.of(now.minusSeconds(1), now.plusMillis(50), now.plusMillis(100),
                now.plusMillis(150));
        try (WriteStalls stalls = WriteStalls.of(() -> metrics(counter[scrapes.getAndIncrement()]))) {
            stalls.readAt(boundaries);
            double[] between = stalls.between();
            assertEquals(3, between.length);
            assertEquals(0.5, between[0], 1e-9);
            assertEquals(0.0, between[1], 1e-9);
            assertEquals(0.75, between[2], 1e-9);
            assertEquals(4, scrapes.get(), "one scrape per boundary, none between");
            assertTrue(!Instant.now().isBefore(boundaries.get(3)), "the last reading waited for its boundary");
        }
    }

    @Test
    void aServerWithoutTheCounterOrWithoutAnAdminPortGivesUnknownNotZero() {
        List<Instant> boundaries = List.of(Instant.now(), Instant.now().plus(Duration.ofMillis(20)));
        try (WriteStalls stalls = WriteStalls.of(() -> "nginx_connections_active 3\n")) {
            stalls.readAt(boundaries);
            double[] between = stalls.between();
            assertEquals(1, between.length);
            assertTrue(Double.isNaN(between[0]));
        }
        try (WriteStalls stalls = WriteStalls.of((URI) null)) {
            stalls.readAt(boundaries);
            assertTrue(Double.isNaN(stalls.between()[0]));
        }
        try (WriteStalls stalls = WriteStalls.of(() -> {
            throw new IllegalStateException("connection refused");
        })) {
            stalls.readAt(boundaries);
            assertTrue(Double.isNaN(stalls.between()[0]), "a failed scrape is unknown too");
        }
    }
}
