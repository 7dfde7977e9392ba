package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A phase's write stalls: the server's stall counter read just outside the phase, from its Prometheus text. */
class WriteStallsTest {

    private static String metrics(double stallSeconds) {
        return "# HELP larder_rocksdb_write_stall_seconds_total Time writers were stalled\n"
                + "# TYPE larder_rocksdb_write_stall_seconds_total counter\n"
                + "larder_rocksdb_write_stall_seconds_total " + stallSeconds + "\n"
                + "larder_rocksdb_write_stopped 0.0\n";
    }

    private static void tick() throws InterruptedException {
        Thread.sleep(3); // readings and bounds must not share an Instant
    }

    @Test
    void aSpansStallIsTheCounterFromTheReadingBeforeItToTheReadingAfterIt() throws Exception {
        AtomicReference<String> text = new AtomicReference<>(metrics(2.0));
        try (WriteStalls stalls = WriteStalls.start(text::get)) {
            tick();
            Instant a = Instant.now();
            tick();
            text.set(metrics(2.5));
            Instant b = Instant.now();
            tick();
            stalls.readNow();
            tick();
            text.set(metrics(3.25));
            Instant c = Instant.now();
            tick();
            stalls.readNow();
            assertEquals(0.5, stalls.seconds(a, b), 1e-9);
            assertEquals(1.25, stalls.seconds(a, c), 1e-9);
            assertTrue(Double.isNaN(stalls.seconds(a, Instant.now().plusSeconds(60))), "no reading after it yet");
            assertTrue(Double.isNaN(stalls.seconds(Instant.EPOCH, c)), "no reading before it");
        }
    }

    @Test
    void aServerWithoutTheCounterOrWithoutAnAdminPortGivesUnknownNotZero() throws Exception {
        try (WriteStalls stalls = WriteStalls.start(() -> "nginx_connections_active 3\n")) {
            Instant a = Instant.now();
            tick();
            stalls.readNow();
            assertTrue(Double.isNaN(stalls.seconds(a, Instant.now())));
        }
        try (WriteStalls stalls = WriteStalls.start((URI) null)) {
            assertTrue(Double.isNaN(stalls.seconds(Instant.EPOCH, Instant.now())));
        }
    }
}
