package dev.larder.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class Level0FilesTest {

    @Test
    void flushesAddFilesAndCompactionsTakeTheirInputsAway() {
        Level0Files level0 = new Level0Files(3);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        assertFalse(level0.crowded());
        level0.flushed("/data/000014.sst");
        assertTrue(level0.crowded());
        // An L0 -> L6 compaction names its L6 input too, which was never counted.
        level0.compacted(List.of("/data//000010.sst", "/data/000012.sst", "/data/000009.sst"),
                List.of("/data/000015.sst"), 6);
        assertEquals(1, level0.count());
        assertFalse(level0.crowded());
    }

    @Test
    void anIntraLevel0CompactionLeavesItsOutputInLevel0() {
        Level0Files level0 = new Level0Files(10);
        level0.flushed("/data/000010.sst");
        level0.flushed("/data/000012.sst");
        level0.compacted(List.of("/data/000010.sst", "/data/000012.sst"), List.of("/data/000013.sst"), 0);
        assertEquals(1, level0.count());
    }
}
