package dev.larder.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Readings of one source, taken every period on a daemon thread of their own and kept in order, for a run's windows to
 * be measured from afterwards ({@link HostSteal}, {@link ProcessCpuTime}). Each keeps its own parsing and its own
 * window arithmetic; this is the thread and the list they share. A source that gives no first reading is not read
 * again (what cannot be read now will not be readable a period later): no thread is started for nothing.
 *
 * @param <S> one reading
 */
final class PeriodicSampler<S> implements AutoCloseable {

    private final Supplier<S> source;
    private final long periodNanos;
    private final List<S> readings = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;

    private PeriodicSampler(String name, long periodMillis, Supplier<S> source) {
        this.source = source;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
        thread = new Thread(this::readUntilClosed, name);
        thread.setDaemon(true);
    }

    /**
     * Takes a first reading of {@code source} (null or an exception: none) and, if there is one, starts reading every
     * {@code periodMillis} on a thread named {@code name}. {@code readingCode}, the classes whose code the readings
     * run, is kept out of C2 with this class ({@link CompilerDirectives}): compiled minutes into a run, it took the
     * generator's core.
     */
    static <S> PeriodicSampler<S> start(String name, long periodMillis, Supplier<S> source,
                                        List<Class<?>> readingCode) {
        List<Class<?>> sampling = new ArrayList<>(readingCode);
        sampling.add(PeriodicSampler.class);
        CompilerDirectives.keepOutOfC2(sampling);
        PeriodicSampler<S> sampler = new PeriodicSampler<>(name, periodMillis, source);
        if (sampler.read()) {
            sampler.thread.start();
        } else {
            sampler.stopped = true;
        }
        return sampler;
    }

    private void readUntilClosed() {
        // On a fixed schedule, so a slow reading does not push every later one back.
        long next = System.nanoTime();
        while (!stopped) {
            next += periodNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (!stopped) {
                read();
            }
        }
    }

    /** Takes one reading now; {@code false} when there was none. */
    boolean read() {
        S reading;
        try {
            reading = source.get();
        } catch (RuntimeException e) {
            return false;
        }
        if (reading == null) {
            return false;
        }
        synchronized (readings) {
            readings.add(reading);
        }
        return true;
    }

    /** The readings so far, oldest first (a copy). */
    List<S> readings() {
        synchronized (readings) {
            return new ArrayList<>(readings);
        }
    }

    /** Two readings that bound a span of time; either is null when there is none. */
    record Span<S>(S first, S last) {
    }

    /**
     * The last of {@code readings} (in time order, as {@link #readings()} gives them) taken at or before
     * {@code fromNanos} and the first taken at or after {@code toNanos}: for counters that move only between
     * readings, so a span is measured from the readings just outside it.
     */
    static <S> Span<S> around(List<S> readings, ToLongFunction<S> nanosOf, long fromNanos, long toNanos) {
        int before = firstAfter(readings, nanosOf, fromNanos) - 1;
        int after = firstAtOrAfter(readings, nanosOf, toNanos);
        return new Span<>(before >= 0 ? readings.get(before) : null,
                after < readings.size() ? readings.get(after) : null);
    }

    /** The first and the last of {@code readings} taken between the two times, both included; nulls when none is. */
    static <S> Span<S> within(List<S> readings, ToLongFunction<S> nanosOf, long fromNanos, long toNanos) {
        int first = firstAtOrAfter(readings, nanosOf, fromNanos);
        int last = firstAfter(readings, nanosOf, toNanos) - 1;
        return first > last ? new Span<>(null, null) : new Span<>(readings.get(first), readings.get(last));
    }

    /**
     * The index of the first of {@code readings} taken at or after {@code nanos}; their size when there is none. A
     * binary search: a window's seconds each look up their bounds, and an hour-long window has 18,000 readings.
     */
    private static <S> int firstAtOrAfter(List<S> readings, ToLongFunction<S> nanosOf, long nanos) {
        int low = 0;
        int high = readings.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (nanosOf.applyAsLong(readings.get(mid)) < nanos) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** The index of the first of {@code readings} taken after {@code nanos}; their size when there is none. */
    private static <S> int firstAfter(List<S> readings, ToLongFunction<S> nanosOf, long nanos) {
        return nanos == Long.MAX_VALUE ? readings.size() : firstAtOrAfter(readings, nanosOf, nanos + 1);
    }

    /** How many readings were taken so far. */
    int count() {
        synchronized (readings) {
            return readings.size();
        }
    }

    /** Stops the thread and waits for it, so no reading is taken after this returns. */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        if (thread.isAlive()) {
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
