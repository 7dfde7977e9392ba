package dev.larder.cli;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h}, ISO-8601 ({@code PT10S}), or {@code 0}/{@code off}. */
final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("0") || v.equals("off")) {
            return Duration.ZERO;
        }
        try {
            if (v.startsWith("pt") || v.startsWith("p")) {
                return Duration.parse(value.trim());
            }
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("us")) {
                return Duration.ofNanos(Long.parseLong(v.substring(0, v.length() - 2)) * 1000);
            }
            long amount = Long.parseLong(v.substring(0, v.length() - 1));
            switch (v.charAt(v.length() - 1)) {
                case 's': return Duration.ofSeconds(amount);
                case 'm': return Duration.ofMinutes(amount);
                case 'h': return Duration.ofHours(amount);
                default: break;
            }
        } catch (RuntimeException e) {
            // fall through to the message below
        }
        throw new TypeConversionException("'" + value + "' is not a duration (expected e.g. 250ms, 10s, 2m, off)");
    }
}
