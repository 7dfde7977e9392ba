package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class MemtableCountTest {

    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;

    private final MemtableCount.Converter converter = new MemtableCount.Converter();

    @Test
    void autoKeepsFourOfTheDefaultSizeInTheOneGibImageAndGivesEightWhereASixteenthOfMemoryHoldsThem() {
        MemtableCount auto = converter.convert("auto");
        assertEquals(4, auto.resolve(GIB, 32 * MIB), "1 GiB: 64 MiB would be two; never fewer than four");
        assertEquals(4, auto.resolve(2 * GIB, 32 * MIB));
        assertEquals(6, auto.resolve(3 * GIB, 32 * MIB));
        assertEquals(8, auto.resolve(4 * GIB, 32 * MIB));
        assertEquals(8, auto.resolve(64 * GIB, 32 * MIB), "never more than eight");
        assertEquals(4, auto.resolve(4 * GIB, 64 * MIB), "larger memtables: fewer fit the same share");
        assertEquals(8, auto.resolve(GIB, 64 * 1024), "tiny memtables: the cap, not thousands");
    }

    @Test
    void aNumberIsTakenAsItIsWhateverTheMemory() {
        MemtableCount two = converter.convert(" 2 ");
        assertEquals(2, two.resolve(64 * GIB, 32 * MIB));
        assertEquals(12, converter.convert("12").resolve(GIB, 32 * MIB));
        assertEquals("2", two.toString());
        assertEquals("auto", converter.convert("AUTO").toString());
    }

    @Test
    void neitherAutoNorAPositiveWholeNumberIsRefusedNamingWhatIsExpected() {
        for (String bad : new String[] {"0", "-3", "many", "4.5", ""}) {
            TypeConversionException e = assertThrows(TypeConversionException.class, () -> converter.convert(bad), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'") && e.getMessage().contains("expected auto"),
                    e.getMessage());
        }
    }
}
