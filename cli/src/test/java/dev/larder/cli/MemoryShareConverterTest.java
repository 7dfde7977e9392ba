package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class MemoryShareConverterTest {

    private static final long GIB = 1L << 30;

    private final MemoryShareConverter converter = new MemoryShareConverter(() -> 8 * GIB);

    @Test
    void aShareIsTakenOfTheMemoryTheProcessMayUse() {
        assertEquals(2 * GIB, converter.convert("25%"));
        assertEquals(GIB / 2, converter.convert(" 6.25 % "));
        assertEquals(0L, converter.convert("0%"));
        assertEquals(8 * GIB, converter.convert("100%"));
    }

    @Test
    void aSizeIsReadAsASize() {
        assertEquals(128L << 20, converter.convert("128MiB"));
        assertEquals(1L << 30, converter.convert("1g"));
        assertEquals(0L, converter.convert("0"));
    }

    @Test
    void sharesOutsideZeroToAHundredAndNonNumbersAreRefusedWithTheirReason() {
        for (String bad : new String[] {"101%", "-1%", "%", "abc%", "NaN%"}) {
            TypeConversionException e = assertThrows(TypeConversionException.class, () -> converter.convert(bad), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'") && e.getMessage().contains("0% to 100%"),
                    e.getMessage());
        }
        assertThrows(TypeConversionException.class, () -> converter.convert("12q"));
    }

    @Test
    void theMemoryLimitIsPositiveAndNoMoreThanTheMachinesRam() throws Exception {
        long ram = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/meminfo")).stream()
                .filter(l -> l.startsWith("MemTotal:"))
                .mapToLong(l -> Long.parseLong(l.replaceAll("\\D", "")) << 10)
                .findFirst().orElseThrow();
        long limit = MemoryShareConverter.memoryLimit();
        assertTrue(limit > 0 && limit <= ram, "memory limit " + limit + ", RAM " + ram);
    }
}
