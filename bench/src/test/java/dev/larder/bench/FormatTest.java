package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The text must read like wrk2's, number formats included, so scripts that parse wrk2 keep working. */
class FormatTest {

    @Test
    void unitsFollowWrk() {
        assertEquals("621.00us", Units.timeMicros(621));
        assertEquals("0.91ms", Units.timeMicros(909));
        assertEquals("1.22ms", Units.timeMicros(1220));
        assertEquals("94.46ms", Units.timeMicros(94_460));
        assertEquals("1.16s", Units.timeMicros(1_160_000));
        assertEquals("1.00m", Units.timeMicros(60_000_000));
        assertEquals("8.79k", Units.metric(8790));
        assertEquals("109.18k", Units.metric(109_180));
        assertEquals("191.09M", Units.binary(191.09 * 1024 * 1024));
        assertEquals("30s", Units.durationHeader(Duration.ofSeconds(30)));
        assertEquals("1m", Units.durationHeader(Duration.ofSeconds(60)));
        assertEquals("    1.22ms", Units.column("1.22ms", 10));
        assertEquals("     1.16s ", Units.column("1.16s", 11));
        assertEquals("   8.79k ", Units.column("8.79k", 9));
    }

    static RunResult sample(double rate, long... latenciesMicros) {
        return sample(rate, Timeline.EMPTY, latenciesMicros);
    }

    /** As {@link #sample(double, long...)}, with the given second-by-second timeline. */
    static RunResult sample(double rate, Timeline timeline, long... latenciesMicros) {
        Histogram c = GeneratorThread.newHistogram();
        Histogram u = GeneratorThread.newHistogram();
        Histogram lag = GeneratorThread.newHistogram();
        for (long v : latenciesMicros) {
            c.recordValue(v);
            u.recordValue(Math.min(v, 2000));
            lag.recordValue(10);
        }
        TreeMap<Integer, Long> status = new TreeMap<>();
        status.put(200, (long) latenciesMicros.length - 1);
        status.put(503, 1L);
        RunResult draft = new RunResult("stub", URI.create("http://127.0.0.1:8080"), "get", rate, 64, 1, 1.0, c, u,
                lag, latenciesMicros.length, 1000, SocketErrors.NONE, status, new double[] {90, 100, 110}, 0, 0,
                0, List.of(), List.of(), timeline);
        return draft.withWarnings(Honesty.check(draft));
    }

    @Test
    void wrk2LayoutIsParseable() {
        long[] lat = new long[1000];
        for (int i = 0; i < lat.length; i++) {
            lat[i] = 1000 + i;
        }
        RunResult r = sample(1000, lat);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Wrk2Format.header(out, r, Duration.ofSeconds(30));
        Wrk2Format.body(out, r);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("Running 30s test @ http://127.0.0.1:8080\n  1 threads and 64 connections\n"), text);
        assertTrue(Pattern.compile("(?m)^    Latency\\s+[\\d.]+ms\\s+[\\d.]+us\\s+[\\d.]+ms\\s+[\\d.]+%$").matcher(text)
                .find(), text);
        assertTrue(Pattern.compile("(?m)^ 50\\.000%\\s+1\\.50ms$").matcher(text).find(), text);
        assertTrue(Pattern.compile("(?m)^100\\.000%\\s+2\\.00ms$").matcher(text).find(), text);
        assertTrue(text.contains("  Detailed Percentile spectrum:\n       Value   Percentile   TotalCount "
                + "1/(1-Percentile)\n\n"), text);
        assertTrue(Pattern.compile("(?m)^\\s+1\\.999\\s+1\\.000000\\s+1000\\s+inf$").matcher(text).find(), text);
        assertTrue(text.contains("#[Buckets =           27, SubBuckets     =         2048]"), text);
        assertTrue(text.contains("Uncorrected Latency (measured without taking delayed starts into account)"), text);
        assertTrue(text.contains("  1000 requests in 1.00s, 0.98KB read\n"), text);
        assertTrue(text.contains("  Non-2xx or 3xx responses: 1\n"), text);
        assertTrue(Pattern.compile("(?m)^Requests/sec:\\s+1000\\.00$").matcher(text).find(), text);
        assertTrue(Pattern.compile("(?m)^Transfer/sec:\\s+0\\.98KB$").matcher(text).find(), text);
        assertTrue(text.contains("  Status codes: 200=999 503=1"), text);
    }

    @Test
    void bucketCountMatchesWrk2() {
        Histogram h = GeneratorThread.newHistogram();
        assertEquals(27, Wrk2Format.bucketCount(h));
        assertEquals(2048, Wrk2Format.subBucketCount(h));
    }
}
