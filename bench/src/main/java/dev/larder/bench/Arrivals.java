package dev.larder.bench;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How a connection spaces its requests at a fixed rate. The rate is the same either way; what differs is how many
 * requests a server finds waiting when it wakes up, and a server pays some costs per wake-up (the wait, the system
 * calls, a write batch), not per request.
 */
public enum Arrivals {
    /**
     * Every connection sends at exact intervals, the connections shifted evenly within one: the requests reach the
     * server one at a time, as evenly as they can. The least bursty load of a rate, so the one that makes a server pay
     * its per-wake-up costs most often.
     */
    UNIFORM,
    /**
     * Each connection's gaps are exponential with the interval as their mean, so the connections together send a
     * Poisson stream at the rate (the usual model of independent clients): requests sometimes come in clumps and
     * sometimes not at all, as they do from many users.
     */
    POISSON;

    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Arrivals fromFlag(String text) {
        for (Arrivals a : values()) {
            if (a.flag().equalsIgnoreCase(text.trim())) {
                return a;
            }
        }
        throw new IllegalArgumentException("arrivals: '" + text + "' (expected uniform or poisson)");
    }

    /**
     * Where a connection's request {@code sequence} falls after its phase's first due time, in nanoseconds, given
     * where request {@code sequence - 1} fell ({@code previous}) and the phase's mean interval.
     */
    double offset(long sequence, double previous, double intervalNanos, SplittableRandom random) {
        return switch (this) {
            // From the sequence, not by adding: a long run keeps its exact timing.
            case UNIFORM -> sequence * intervalNanos;
            case POISSON -> sequence == 0 ? 0 : previous - intervalNanos * Math.log(1 - random.nextDouble());
        };
    }
}
