package dev.larder.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class FlagValueTest {

    private enum Mode implements FlagValue {
        CALLER_RUNS("caller-runs"),
        IO_URING("io_uring"),
        OFF("off");

        private final String flag;

        Mode(String flag) {
            this.flag = flag;
        }

        @Override
        public String flag() {
            return flag;
        }
    }

    @Test
    void readsTheFlagSpellingInAnyCase() {
        assertEquals(Mode.CALLER_RUNS, FlagValue.parse(Mode.class, "caller-runs"));
        assertEquals(Mode.CALLER_RUNS, FlagValue.parse(Mode.class, "Caller-Runs"));
        assertEquals(Mode.IO_URING, FlagValue.parse(Mode.class, "io_uring"));
    }

    @Test
    void readsTheJavaNameToo() {
        assertEquals(Mode.CALLER_RUNS, FlagValue.parse(Mode.class, "CALLER_RUNS"));
        assertEquals(Mode.OFF, FlagValue.parse(Mode.class, "Off"));
    }

    @Test
    void aWrongValueNamesEverySpellingInOrder() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FlagValue.parse(Mode.class, "callerruns"));
        assertEquals("expected one of caller-runs, io_uring, off but was 'callerruns'", e.getMessage());
    }

    @Test
    void theStoresOwnModesGoThroughIt() {
        assertEquals(BlockCacheType.LRU, BlockCacheType.fromFlag("lru"));
        assertEquals(TableWarming.AS_WRITTEN, TableWarming.fromFlag("as-written"));
        assertEquals(TableWarming.READ_BACK, TableWarming.fromFlag("true"));
        assertEquals("expected one of hyper-clock, lru but was 'clock'",
                assertThrows(IllegalArgumentException.class, () -> BlockCacheType.fromFlag("clock")).getMessage());
    }
}
