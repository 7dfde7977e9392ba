package dev.larder.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads byte sizes: {@code 1048576}, {@code 64k}, {@code 16MiB}, {@code 1g}. */
final class SizeConverter implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT).replace("ib", "").replace("b", "");
        long unit = 1;
        if (!v.isEmpty()) {
            switch (v.charAt(v.length() - 1)) {
                case 'k' -> unit = 1L << 10;
                case 'm' -> unit = 1L << 20;
                case 'g' -> unit = 1L << 30;
                default -> { }
            }
        }
        String digits = unit == 1 ? v : v.substring(0, v.length() - 1);
        try {
            long n = Long.parseLong(digits.trim());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return Math.multiplyExact(n, unit);
        } catch (RuntimeException e) {
            throw new TypeConversionException("'" + value + "' is not a size (expected e.g. 1048576, 64k, 16MiB, 1g)");
        }
    }
}
