package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Finding the readings that bound a span: just outside it (counters that move between readings) or inside it. */
class PeriodicSamplerTest {

    private record Reading(long nanos) {
    }

    private static final List<Reading> READINGS = List.of(new Reading(10), new Reading(20), new Reading(30),
            new Reading(40));

    private static PeriodicSampler.Span<Long> around(long from, long to) {
        return times(PeriodicSampler.around(READINGS, Reading::nanos, from, to));
    }

    private static PeriodicSampler.Span<Long> within(long from, long to) {
        return times(PeriodicSampler.within(READINGS, Reading::nanos, from, to));
    }

    private static PeriodicSampler.Span<Long> times(PeriodicSampler.Span<Reading> span) {
        return new PeriodicSampler.Span<>(span.first() == null ? null : span.first().nanos(),
                span.last() == null ? null : span.last().nanos());
    }

    @Test
    void aroundTakesTheLastReadingAtOrBeforeTheStartAndTheFirstAtOrAfterTheEnd() {
        assertEquals(new PeriodicSampler.Span<>(10L, 40L), around(15, 35));
        assertEquals(new PeriodicSampler.Span<>(20L, 30L), around(20, 30), "a reading on a bound is that bound's");
        assertEquals(new PeriodicSampler.Span<>(20L, 30L), around(21, 29));
        assertEquals(new PeriodicSampler.Span<>(null, null), around(5, 45), "nothing outside either end");
        assertEquals(new PeriodicSampler.Span<>(10L, null), around(15, Long.MAX_VALUE), "a span still running");
    }

    @Test
    void withinTakesTheFirstAndTheLastReadingInsideTheSpanBothEndsIncluded() {
        assertEquals(new PeriodicSampler.Span<>(20L, 30L), within(15, 35));
        assertEquals(new PeriodicSampler.Span<>(20L, 30L), within(20, 30), "a reading on a bound is inside");
        assertEquals(new PeriodicSampler.Span<>(null, null), within(21, 29), "none inside");
        assertEquals(new PeriodicSampler.Span<>(30L, 30L), within(25, 35), "one inside is both ends");
        assertEquals(new PeriodicSampler.Span<>(10L, 40L), within(0, Long.MAX_VALUE));
        assertEquals(new PeriodicSampler.Span<>(null, null), within(0, 5), "all after the span");
    }
}
