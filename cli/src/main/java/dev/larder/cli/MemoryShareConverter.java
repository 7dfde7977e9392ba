package dev.larder.cli;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a cache size: a byte size as {@link SizeConverter} reads it ({@code 128MiB}), or a share of the memory this
 * process may use ({@code 25%}): the container's memory limit when it has one, else the machine's RAM. A share lets
 * one default fit a laptop, a 1 GiB container and a large server alike.
 */
final class MemoryShareConverter implements ITypeConverter<Long> {

    private final LongSupplier totalMemory;

    MemoryShareConverter() {
        this(MemoryShareConverter::memoryLimit);
    }

    MemoryShareConverter(LongSupplier totalMemory) {
        this.totalMemory = totalMemory;
    }

    @Override
    public Long convert(String value) {
        String v = value.trim();
        if (!v.endsWith("%")) {
            return new SizeConverter().convert(value);
        }
        double percent;
        try {
            percent = Double.parseDouble(v.substring(0, v.length() - 1).trim());
        } catch (NumberFormatException e) {
            percent = Double.NaN;
        }
        if (!(percent >= 0 && percent <= 100)) {
            throw new TypeConversionException("'" + value + "' is not a share of memory (expected 0% to 100%, "
                    + "or a size such as 128MiB)");
        }
        return (long) (totalMemory.getAsLong() * percent / 100);
    }

    /** The JDK's figure already is the container's limit inside a container (cgroup v1 and v2). */
    static long memoryLimit() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
    }
}
