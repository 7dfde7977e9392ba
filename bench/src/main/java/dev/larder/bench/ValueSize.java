package dev.larder.bench;

/**
 * Size of PUT bodies: fixed ({@code 64}) or uniformly random in a closed range ({@code 64-4096}).
 *
 * @param min smallest body in bytes
 * @param max largest body in bytes (equal to {@code min} for a fixed size)
 */
public record ValueSize(int min, int max) {

    /** The largest value we pre-generate bytes for. */
    public static final int LIMIT = 64 << 20;

    public ValueSize {
        if (min < 0) {
            throw new IllegalArgumentException("value-size: " + min + " (expected: >= 0)");
        }
        if (max < min) {
            throw new IllegalArgumentException("value-size: " + min + "-" + max + " (expected: min <= max)");
        }
        if (max > LIMIT) {
            throw new IllegalArgumentException("value-size: " + max + " (expected: <= " + LIMIT + ")");
        }
    }

    public static ValueSize fixed(int size) {
        return new ValueSize(size, size);
    }

    /** Parses {@code 64} or {@code 64-4096} (plain byte counts; the CLI converts k/MiB suffixes itself). */
    public static ValueSize parse(String text) {
        String t = text.trim();
        int dash = t.indexOf('-', 1);
        try {
            if (dash < 0) {
                return fixed(Integer.parseInt(t));
            }
            return new ValueSize(Integer.parseInt(t.substring(0, dash).trim()),
                    Integer.parseInt(t.substring(dash + 1).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("value-size: '" + text + "' (expected: N or MIN-MAX bytes)");
        }
    }

    public boolean isFixed() {
        return min == max;
    }

    @Override
    public String toString() {
        return isFixed() ? Integer.toString(min) : min + "-" + max;
    }
}
