package dev.larder.server.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.config.MissReads;
import dev.larder.server.config.ServerOptions;
import org.junit.jupiter.api.Test;

/** {@code --miss-reads}: who reads a GET the block cache missed, and the back-off after a slow read on the loop. */
class LoopMissReadsTest {

    private static final long BOUND = ServerOptions.MISS_READ_BOUND.toNanos();
    private static final long BACKOFF = ServerOptions.MISS_READ_BACKOFF.toNanos();

    private static LoopMissReads of(MissReads m, int workers, int ioThreads, int cpus) {
        return LoopMissReads.of(ServerOptions.builder(1).ioThreads(ioThreads).workers(workers).missReads(m).build(),
                cpus);
    }

    @Test
    void autoReadsOnTheLoopOnlyWhenTheWorkersHaveNoCpuOfTheirOwn() {
        assertTrue(of(MissReads.AUTO, 2, 1, 1).enabled(), "pinned to one CPU, one loop");
        assertTrue(of(MissReads.AUTO, 2, 2, 2).enabled(), "a loop on each CPU");
        assertFalse(of(MissReads.AUTO, 2, 1, 2).enabled(), "a CPU left for the workers");
        assertTrue(of(MissReads.LOOP, 2, 1, 8).enabled());
        assertFalse(of(MissReads.WORKERS, 2, 1, 1).enabled());
        assertFalse(of(MissReads.LOOP, 0, 1, 1).enabled(), "the sync mode reads everything on the loop anyway");
        assertEquals(MissReads.AUTO, ServerOptions.builder(1).build().missReads(), "the default");
    }

    @Test
    void aReadSlowerThanTheBoundSendsMissesToTheWorkersForTheBackOff() {
        LoopMissReads reads = of(MissReads.LOOP, 2, 1, 1);
        long now = 1_000_000_000L;
        assertTrue(reads.mayRead(now));
        assertFalse(reads.took(BOUND, now), "at the bound: a page-cache read");
        assertTrue(reads.mayRead(now));
        for (int i = 1; i < LoopMissReads.SLOW_READS; i++) {
            assertTrue(reads.took(BOUND + 1, now + i), "past it: slow");
            assertTrue(reads.mayRead(now + i), "fewer than SLOW_READS slow reads: a slice lost, not a disk");
        }
        assertTrue(reads.took(BOUND + 1, now + 100));
        assertFalse(reads.mayRead(now + 100), "the SLOW_READS-th within a back-off: a disk");
        assertFalse(reads.mayRead(now + 100 + BACKOFF - 1));
        assertTrue(reads.mayRead(now + 100 + BACKOFF));
        // Slow reads further apart than a back-off never add up.
        LoopMissReads spread = of(MissReads.LOOP, 2, 1, 1);
        for (int i = 0; i < 3 * LoopMissReads.SLOW_READS; i++) {
            spread.took(BOUND * 2, -5 + i * BACKOFF);
            assertTrue(spread.mayRead(-5 + i * BACKOFF), "read " + i);
        }
    }

    @Test
    void workersNeverReadOnTheLoop() {
        assertFalse(of(MissReads.WORKERS, 2, 1, 1).mayRead(0), "never, whatever the clock");
    }
}
