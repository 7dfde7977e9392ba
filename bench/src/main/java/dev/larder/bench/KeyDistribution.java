package dev.larder.bench;

import java.util.Locale;

/** How reads (get, delete, range) pick their key among {@code k1..kN}. */
public enum KeyDistribution {
    /** Every key equally likely. */
    UNIFORM,
    /** A few keys are hot: YCSB's zipfian with constant 0.99, {@code k1} hottest. */
    ZIPFIAN,
    /**
     * Every key written so far equally likely: {@code k1..kN}, N the highest id handed out to sequential PUTs
     * (prefilled ones included), so reads that follow writes find them (a key whose PUT is still in flight answers
     * 404, which counts as an answer, not an error).
     */
    WRITTEN;

    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static KeyDistribution fromFlag(String value) {
        for (KeyDistribution d : values()) {
            if (d.flag().equalsIgnoreCase(value.trim())) {
                return d;
            }
        }
        throw new IllegalArgumentException("'" + value + "' (expected uniform, zipfian or written)");
    }
}
