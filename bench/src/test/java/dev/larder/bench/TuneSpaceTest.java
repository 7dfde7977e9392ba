package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.TuneSpace.Candidate;
import dev.larder.bench.TuneSpace.Dimension;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class TuneSpaceTest {

    @Test
    void screeningTriesEveryAlternativeOfEveryDimensionAloneTakingEachDimensionsFirstValueFirst() {
        List<Candidate> all = TuneSpace.screening(EnumSet.allOf(Dimension.class));
        assertEquals(13, all.size(), all.toString());
        for (Candidate c : all) {
            assertEquals(1, c.flags().size(), c.label());
        }
        // Round-robin: a budget that stops after one candidate per dimension still saw every dimension.
        assertEquals(EnumSet.allOf(Dimension.class),
                EnumSet.copyOf(all.subList(0, Dimension.values().length).stream()
                        .map(c -> c.flags().keySet().iterator().next()).toList()));
        assertTrue(all.contains(Candidate.DEFAULT.with(Dimension.INLINE_BATCH, "0")));
        assertTrue(all.contains(Candidate.DEFAULT.with(Dimension.INLINE_BATCH, "16")));
        assertEquals("--inline-batch 0", Candidate.DEFAULT.with(Dimension.INLINE_BATCH, "0").label());
        assertEquals("LARDER_INLINE_BATCH=0", Candidate.DEFAULT.with(Dimension.INLINE_BATCH, "0").env());
    }

    @Test
    void theGridCountsEveryValueIncludingTheDefaults() {
        assertEquals(864, TuneSpace.gridSize(EnumSet.allOf(Dimension.class)));
        assertEquals(3, TuneSpace.gridSize(EnumSet.of(Dimension.INLINE_BATCH)));
    }

    @Test
    void dimensionsParseByFlagNameAndRejectUnknownOnes() {
        assertEquals(EnumSet.of(Dimension.INLINE_BATCH, Dimension.WORKERS), Dimension.parse("inline-batch, workers"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dimension.parse("threads"));
        assertTrue(e.getMessage().contains("inline-batch"), e.getMessage());
    }
}
