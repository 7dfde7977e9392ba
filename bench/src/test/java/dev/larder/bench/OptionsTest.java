package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Parsing and validation of everything the CLI hands to the bench module. */
class OptionsTest {

    @Test
    void mixParsesWeightsAndRejectsNonsense() {
        List<Workload.Weighted> mix = Workload.parseMix("get=90, put=10");
        assertEquals(List.of(new Workload.Weighted(Operation.GET, 90), new Workload.Weighted(Operation.PUT, 10)), mix);
        assertThrows(IllegalArgumentException.class, () -> Workload.parseMix("get=abc"));
        assertThrows(IllegalArgumentException.class, () -> Workload.parseMix("fly=1"));
        assertThrows(IllegalArgumentException.class, () -> Workload.parseMix("get=0"));
        assertThrows(IllegalArgumentException.class,
                () -> new Workload(Workload.parseMix("get=1,get=2"), 10, KeyDistribution.UNIFORM, false,
                        ValueSize.fixed(1)));
        Workload w = new Workload(mix, 10, KeyDistribution.ZIPFIAN, false, ValueSize.parse("64-128"));
        assertEquals("get=90,put=10", w.describe());
        assertTrue(w.reads());
    }

    @Test
    void valueSizes() {
        assertEquals(new ValueSize(64, 64), ValueSize.parse("64"));
        assertEquals(new ValueSize(64, 4096), ValueSize.parse("64-4096"));
        assertThrows(IllegalArgumentException.class, () -> ValueSize.parse("4096-64"));
        assertThrows(IllegalArgumentException.class, () -> ValueSize.parse("big"));
    }

    @Test
    void sloParsesAndJudges() {
        Slo slo = Slo.parse("p99=10ms,p99.9=50ms");
        assertEquals(10_000L, slo.bounds().get(99.0));
        assertEquals(50_000L, slo.bounds().get(99.9));
        assertEquals("p99 <= 10.00ms, p99.9 <= 50.00ms, achieved >= 99%, errors < 0.1%", slo.describe());
        assertEquals(500L, Slo.parseMicros("500us"));
        assertEquals(1_500_000L, Slo.parseMicros("1.5s"));
        assertThrows(IllegalArgumentException.class, () -> Slo.parse("p99=10"));
        assertThrows(IllegalArgumentException.class, () -> Slo.parse("99=10ms"));
        assertThrows(IllegalArgumentException.class, () -> Slo.parse("p120=10ms"));

        long[] fast = new long[1000];
        java.util.Arrays.fill(fast, 1000);
        RunResult ok = FormatTest.sample(1000, fast);
        // one 503 in 1000 = 0.1% errors: at the bound, which fails ("< 0.1%")
        assertEquals(List.of("errors 0.10% >= 0.1%"), Slo.parse("p99=10ms").violations(ok));
        List<String> v = Slo.parse("p50=500us").violations(ok);
        assertTrue(v.get(0).startsWith("p50 1.00ms > 500.00us"), v.toString());
    }

    @Test
    void targetSpecs() {
        Target url = Target.parse("http://10.0.0.1:8080", 1);
        assertFalse(url.launched());
        assertEquals("10.0.0.1:8080", url.label());
        Target labelled = Target.parse("prod=http://10.0.0.1:8080", 1);
        assertEquals("prod", labelled.label());
        assertEquals(URI.create("http://10.0.0.1:8080"), labelled.url());
        Target sync = Target.parse("sync=--workers 0 --rejection 'caller-runs'", 1);
        assertTrue(sync.launched());
        assertEquals("sync", sync.label());
        assertEquals(List.of("--workers", "0", "--rejection", "caller-runs"), sync.serveArgs());
        Target unlabelled = Target.parse("--workers=0 --admin-port 9091", 2);
        assertEquals("server2", unlabelled.label());
        assertEquals(9091, unlabelled.adminPortFlag());
        Target defaults = Target.parse("async=", 3);
        assertEquals(List.of(), defaults.serveArgs());
        // https is measured too (issue 18), unverified like wrk.
        assertEquals(URI.create("https://x"), Target.parse("https://x", 1).url());
    }

    @Test
    void optionsValidateWithArgumentNamedMessages() {
        Target t = Target.external("a", URI.create("http://127.0.0.1:1"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.builder().target(t).connections(0).build());
        assertEquals("connections: 0 (expected: > 0)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.builder().target(t).threads(5).connections(4)
                .build());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.builder().target(t).rate(-1).build());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.builder().target(t)
                .duration(Duration.ZERO).build());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.builder().target(t)
                .profileEvents(List.of("gpu")).build());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.builder().target(t)
                .headers(List.of("no colon")).build());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.builder().build());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.builder()
                .target(Target.parse("sync=--workers 0", 1)).build()); // nothing to launch it with
        assertThrows(IllegalArgumentException.class, () -> new SweepOptions(10, 5, 1, 0, Slo.parse("p99=1ms"),
                false, Duration.ZERO, Duration.ZERO));
        assertNull(BenchOptions.builder().target(t).build().json());
        assertEquals(1000.0 / 9, SweepOptions.defaultStep(1000, 2000), 1e-9);
    }

    @Test
    void zipfianIsSkewedAndInRange() {
        Zipfian z = new Zipfian(1000, Zipfian.THETA);
        java.util.SplittableRandom random = new java.util.SplittableRandom(1);
        long[] counts = new long[1001];
        for (int i = 0; i < 100_000; i++) {
            long k = z.next(random);
            assertTrue(k >= 1 && k <= 1000, "rank " + k);
            counts[(int) k]++;
        }
        assertTrue(counts[1] > counts[2] && counts[2] > counts[10] && counts[10] > counts[500],
                "k1 " + counts[1] + ", k2 " + counts[2] + ", k10 " + counts[10] + ", k500 " + counts[500]);
        // With theta 0.99 over 1000 keys the top 10 keys take roughly 35-45% of the requests.
        long top10 = 0;
        for (int i = 1; i <= 10; i++) {
            top10 += counts[i];
        }
        assertTrue(top10 > 30_000 && top10 < 50_000, "top 10: " + top10);
    }
}
