package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.storage.StoreOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class MemtableSizeTest {

    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;

    private final MemtableSize.Converter converter = new MemtableSize.Converter();

    @Test
    void autoGivesSixtyFourMibOnlyWhereEightOfThemFitInASixteenthOfMemory() {
        MemtableSize auto = converter.convert("auto");
        assertEquals(32 * MIB, auto.resolve(GIB), "the 1 GiB image keeps what it was sized with");
        assertEquals(32 * MIB, auto.resolve(4 * GIB));
        assertEquals(32 * MIB, auto.resolve(8 * GIB - 1), "just short of eight in a sixteenth");
        assertEquals(64 * MIB, auto.resolve(8 * GIB));
        assertEquals(64 * MIB, auto.resolve(256 * GIB), "never more than 64 MiB");
        assertEquals(StoreOptions.DEFAULT_WRITE_BUFFER_BYTES, auto.resolve(GIB));
    }

    @Test
    void withAutoCountsMemtableMemoryStaysWithinASixteenthOrTheImagesFloor() {
        for (long memory : new long[] {GIB, 2 * GIB, 3 * GIB, 4 * GIB, 6 * GIB, 8 * GIB, 12 * GIB, 64 * GIB}) {
            long size = MemtableSize.AUTO.resolve(memory);
            long total = size * MemtableCount.AUTO.resolve(memory, size);
            long allowed = Math.max(memory / MemtableCount.AUTO_MEMORY_DIVISOR, MemtableCount.AUTO_MIN * 32 * MIB);
            assertTrue(total <= allowed, memory + ": " + total + " > " + allowed);
        }
        assertEquals(8, MemtableCount.AUTO.resolve(8 * GIB, MemtableSize.AUTO.resolve(8 * GIB)),
                "where 64 MiB is chosen, eight of them");
    }

    @Test
    void aSizeIsTakenAsItIsWhateverTheMemory() {
        assertEquals(64 * 1024, converter.convert("64KiB").resolve(64 * GIB));
        assertEquals(128 * MIB, converter.convert(" 128m ").resolve(GIB));
        assertEquals(0, converter.convert("0").resolve(GIB), "too small, refused by the command, not taken as auto");
        assertEquals("auto", converter.convert("AUTO").toString());
    }

    @Test
    void neitherAutoNorASizeIsRefusedNamingWhatIsExpected() {
        for (String bad : new String[] {"big", "-3m", "4.5m"}) {
            TypeConversionException e = assertThrows(TypeConversionException.class, () -> converter.convert(bad), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'") && e.getMessage().contains("expected auto"),
                    e.getMessage());
        }
    }
}
