package dev.larder.server;

import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads one series' value out of Prometheus text exposition, as a scrape of {@code /metrics} returns it. */
public final class Exposition {

    private Exposition() {
    }

    /** The value of {@code series} (name with its labels, exactly as exposed); empty when it is not exposed. */
    public static OptionalDouble value(String exposition, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(exposition);
        return m.find() ? OptionalDouble.of(Double.parseDouble(m.group(1))) : OptionalDouble.empty();
    }
}
