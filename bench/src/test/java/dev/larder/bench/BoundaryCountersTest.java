package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Each phase's counts: the server's counters read at the phase boundaries, from its Prometheus text. */
class BoundaryCountersTest {

    private static final List<String> NAMES = BoundaryCounters.TAIL;

    private static String metrics(double stallSeconds, double spinSeconds) {
        return "# HELP larder_rocksdb_write_stall_seconds_total Time writers were stalled\n"
                + "# TYPE larder_rocksdb_write_stall_seconds_total counter\n"
                + "larder_rocksdb_write_stall_seconds_total " + stallSeconds + "\n"
                + "larder_rocksdb_write_stopped 0.0\n"
                + "# TYPE larder_io_coalesce_spin_seconds_total counter\n"
                + "larder_io_coalesce_spin_seconds_total " + spinSeconds + "\n";
    }

    @Test
    void eachSpanIsTheCounterAtItsEndLessTheCounterAtItsStartReadAtTheBoundariesOnly() {
        double[] stall = {2.0, 2.5, 2.5, 3.25};
        double[] spin = {10.0, 10.0, 14.5, 20.0};
        AtomicInteger scrapes = new AtomicInteger();
        Instant now = Instant.now();
        // The first boundary already past (read at once), the others 50 ms apart.
        List<Instant> boundaries = List.of(now.minusSeconds(1), now.plusMillis(50), now.plusMillis(100),
                now.plusMillis(150));
        try (BoundaryCounters counters = BoundaryCounters.of(NAMES, () -> {
            int i = scrapes.getAndIncrement();
            return metrics(stall[i], spin[i]);
        })) {
            counters.readAt(boundaries);
            BoundaryCounters.Spans spans = counters.between();
            assertEquals(3, spans.count());
            assertEquals(0.5, spans.of(BoundaryCounters.WRITE_STALL_SECONDS, 0), 1e-9);
            assertEquals(0.0, spans.of(BoundaryCounters.WRITE_STALL_SECONDS, 1), 1e-9);
            assertEquals(0.75, spans.of(BoundaryCounters.WRITE_STALL_SECONDS, 2), 1e-9);
            assertEquals(0.0, spans.of(BoundaryCounters.COALESCE_SPIN_SECONDS, 0), 1e-9);
            assertEquals(4.5, spans.of(BoundaryCounters.COALESCE_SPIN_SECONDS, 1), 1e-9);
            assertEquals(5.5, spans.of(BoundaryCounters.COALESCE_SPIN_SECONDS, 2), 1e-9);
            assertTrue(Double.isNaN(spans.of(BoundaryCounters.COALESCE_SPIN_SECONDS, 3)), "past the last span");
            assertEquals(4, scrapes.get(), "one scrape per boundary for all the counters, none between");
            assertTrue(!Instant.now().isBefore(boundaries.get(3)), "the last reading waited for its boundary");
            assertThrows(IllegalArgumentException.class, () -> spans.of("larder_requests_total", 0));
        }
    }

    @Test
    void aCounterTheServerDoesNotHaveIsUnknownWhileTheOthersAreRead() {
        // A server that does not spin has no spin counter.
        AtomicInteger scrapes = new AtomicInteger();
        List<Instant> boundaries = List.of(Instant.now(), Instant.now().plus(Duration.ofMillis(20)));
        try (BoundaryCounters counters = BoundaryCounters.of(NAMES, () -> "larder_rocksdb_write_stall_seconds_total "
                + (scrapes.getAndIncrement() == 0 ? "1.0" : "3.0") + "\n")) {
            counters.readAt(boundaries);
            BoundaryCounters.Spans spans = counters.between();
            assertEquals(2.0, spans.of(BoundaryCounters.WRITE_STALL_SECONDS, 0), 1e-9);
            assertTrue(Double.isNaN(spans.of(BoundaryCounters.COALESCE_SPIN_SECONDS, 0)));
        }
    }

    @Test
    void aServerWithoutTheCountersOrWithoutAnAdminPortGivesUnknownNotZero() {
        List<Instant> boundaries = List.of(Instant.now(), Instant.now().plus(Duration.ofMillis(20)));
        try (BoundaryCounters counters = BoundaryCounters.of(NAMES, () -> "nginx_connections_active 3\n")) {
            counters.readAt(boundaries);
            BoundaryCounters.Spans spans = counters.between();
            assertEquals(1, spans.count());
            assertTrue(Double.isNaN(spans.of(BoundaryCounters.WRITE_STALL_SECONDS, 0)));
            assertTrue(Double.isNaN(spans.of(BoundaryCounters.COALESCE_SPIN_SECONDS, 0)));
        }
        try (BoundaryCounters counters = BoundaryCounters.of((URI) null, NAMES)) {
            counters.readAt(boundaries);
            assertTrue(Double.isNaN(counters.between().of(BoundaryCounters.WRITE_STALL_SECONDS, 0)));
        }
        try (BoundaryCounters counters = BoundaryCounters.of(NAMES, () -> {
            throw new IllegalStateException("connection refused");
        })) {
            counters.readAt(boundaries);
            assertTrue(Double.isNaN(counters.between().of(BoundaryCounters.WRITE_STALL_SECONDS, 0)),
                    "a failed scrape is unknown too");
        }
    }
}
