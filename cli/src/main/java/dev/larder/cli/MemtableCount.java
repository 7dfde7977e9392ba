package dev.larder.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --memtables}: a fixed count, or {@code auto}, which scales the count with the memory the process may use.
 *
 * <p>Why scale: when every memtable is full RocksDB stops all writes until a flush is done, and a flush at nice 19 on
 * a core the request path keeps busy gets about 2% of it. Four memtables of 32 MiB filled about 25 s into a write
 * phase at 76k PUT/s and writes stopped for up to a second; eight held the phase without a stop
 * (docs/performance.md, sessions 72 and 73). But eight is 256 MiB of native memory, which a 1 GiB container
 * cannot spare beside its heap and block cache, so {@code auto} gives memtables a sixteenth of the memory, at least
 * {@value #AUTO_MIN} (what the 1 GiB image was sized with) and at most {@value #AUTO_MAX} of them.
 *
 * @param fixed the count asked for, or 0 for {@code auto}
 */
record MemtableCount(int fixed) {

    static final MemtableCount AUTO = new MemtableCount(0);
    static final int AUTO_MIN = 4;
    static final int AUTO_MAX = 8;
    /** Memtables may take this fraction (1/N) of the memory under {@code auto}. */
    static final int AUTO_MEMORY_DIVISOR = 16;

    /** The count to open the store with, given the memory the process may use and one memtable's size. */
    int resolve(long memoryBytes, long writeBufferBytes) {
        if (fixed != 0) {
            return fixed;
        }
        long fits = memoryBytes / AUTO_MEMORY_DIVISOR / writeBufferBytes;
        return (int) Math.max(AUTO_MIN, Math.min(AUTO_MAX, fits));
    }

    @Override
    public String toString() {
        return fixed == 0 ? "auto" : Integer.toString(fixed);
    }

    /** Reads {@code auto} or a whole number; the store refuses counts below its minimum, naming the flag. */
    static final class Converter implements ITypeConverter<MemtableCount> {
        @Override
        public MemtableCount convert(String value) {
            String v = value.trim();
            if (v.equalsIgnoreCase("auto")) {
                return AUTO;
            }
            try {
                int n = Integer.parseInt(v);
                if (n <= 0) {
                    throw new NumberFormatException();
                }
                return new MemtableCount(n);
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a memtable count (expected auto or a "
                        + "whole number >= 2)");
            }
        }
    }
}
