package dev.larder.cli;

import dev.larder.storage.StoreOptions;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --write-buffer}: one memtable's size, or {@code auto}: {@value #AUTO_LARGE_BYTES} bytes where
 * {@value MemtableCount#AUTO_MAX} of them fit in the share of memory {@code --memtables auto} gives memtables (a
 * sixteenth: 8 GiB or more), else the store's default of 32 MiB.
 *
 * <p>Why larger where memory allows: every flush writes one level-0 file, and a GET that misses the memtables probes
 * each level-0 file. Compactions at nice 19 on a core the requests keep busy clear them slowly, so after a write phase
 * at 75% of capacity the GETs read over 12-24 of them, and the first GET phase cost 14.9-15.7 us per request. Files of
 * 64 MiB halved their number for the same bytes written; that phase then read over 12-13 and cost 12.7-13.4 us
 * (docs/performance.md, session 98). Two servers loaded side by side at 26-28 files against 12-13: 0.97x the CPU per
 * GET and 0.95x per PUT (session 99). The small machines keep 32 MiB because the memtable count, which decides
 * whether writes stop behind a slow flush, matters more there than the read cost: four of 32 MiB is what the 1 GiB
 * image was sized with.
 *
 * @param fixedBytes the size asked for, or {@link #AUTO_BYTES} for {@code auto}
 */
record MemtableSize(long fixedBytes) {

    static final long AUTO_BYTES = -1;
    static final MemtableSize AUTO = new MemtableSize(AUTO_BYTES);
    static final long AUTO_SMALL_BYTES = StoreOptions.DEFAULT_WRITE_BUFFER_BYTES;
    static final long AUTO_LARGE_BYTES = 64L << 20;

    /** One memtable's size, given the memory the process may use. */
    long resolve(long memoryBytes) {
        if (fixedBytes != AUTO_BYTES) {
            return fixedBytes;
        }
        long share = memoryBytes / MemtableCount.AUTO_MEMORY_DIVISOR;
        return share >= MemtableCount.AUTO_MAX * AUTO_LARGE_BYTES ? AUTO_LARGE_BYTES : AUTO_SMALL_BYTES;
    }

    @Override
    public String toString() {
        return fixedBytes == AUTO_BYTES ? "auto" : Long.toString(fixedBytes);
    }

    /** Reads {@code auto} or a size; the command refuses sizes below the store's minimum, naming the flag. */
    static final class Converter implements ITypeConverter<MemtableSize> {
        @Override
        public MemtableSize convert(String value) {
            if (value.trim().equalsIgnoreCase("auto")) {
                return AUTO;
            }
            try {
                return new MemtableSize(new SizeConverter().convert(value));
            } catch (TypeConversionException e) {
                throw new TypeConversionException("'" + value + "' is not a memtable size (expected auto or a size, "
                        + "e.g. 64MiB)");
            }
        }
    }
}
