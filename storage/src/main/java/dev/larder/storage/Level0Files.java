package dev.larder.storage;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The level-0 table files this process has seen flushed and not yet seen compacted away, and when the last flush came,
 * both from RocksDB's events, so an event listener can tell without calling into the database whether level 0 is
 * crowded and filling up.
 *
 * <p>Why: reading a compaction's output into the cache before the compaction installs it makes the compaction take
 * longer, and level-0 files pile up meanwhile; at {@code level0_slowdown_writes_trigger} files RocksDB slows every
 * write down. They pile up only while flushes keep coming, though: in a read phase flushes are rare, and there a
 * compaction installed cold cost every GET of its keys a miss (docs/performance.md, "Session 52": in 4 of 5 rounds a
 * compaction ended 17-33 s after the last flush with 20-21 level-0 files, and the seconds after its installation had
 * p99 39-938 ms). So level 0 counts as crowded only while a flush came within {@code filling}, and a caller that finds
 * it crowded can wait out the rest of that window ({@link #awaitSettled()}) rather than guess: a compaction that ended
 * 3.6-5 s after a write phase's last flush was installed cold too ("Session 52"; "Session 53": 9.8 s). The wait
 * goes on across flushes until level 0 is {@link #urgent()}, so a compaction that ends inside a write phase is read
 * before it is installed unless level 0 is close to RocksDB's slowdown by then ("Session 61"). Files that
 * were there when the store opened are not counted, so after a restart the count is low until those are compacted.
 */
final class Level0Files {

    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private final int crowdedAt;
    private final int urgentAt;
    private final long fillingNanos;
    private final LongSupplier nanoClock;
    private volatile long lastFlushNanos;
    // Guarded by this.
    private boolean released;

    /**
     * {@code crowdedAt}: the count from which {@link #crowded()} is true while flushes come; {@code urgentAt}: the
     * count from which {@link #urgent()} is true whether or not they come; {@code filling}: how long after the last
     * flush level 0 still counts as filling up.
     */
    Level0Files(int crowdedAt, int urgentAt, Duration filling, LongSupplier nanoClock) {
        this.crowdedAt = crowdedAt;
        this.urgentAt = urgentAt;
        this.fillingNanos = filling.toNanos();
        this.nanoClock = nanoClock;
        this.lastFlushNanos = nanoClock.getAsLong() - fillingNanos;
    }

    /** A flush wrote {@code file} to level 0. */
    void flushed(String file) {
        names.add(NewTableWarmer.nameOf(file));
        synchronized (this) {
            lastFlushNanos = nanoClock.getAsLong();
            // A waiter re-checks whether level 0 is urgent now.
            notifyAll();
        }
    }

    /** A compaction read {@code inputs} (of any level) and wrote {@code outputs} to {@code outputLevel}. */
    void compacted(Collection<String> inputs, Collection<String> outputs, int outputLevel) {
        for (String input : inputs) {
            names.remove(NewTableWarmer.nameOf(input));
        }
        if (outputLevel == 0) {
            for (String output : outputs) {
                names.add(NewTableWarmer.nameOf(output));
            }
        }
        synchronized (this) {
            // A waiter whose level 0 is no longer crowded may go on now.
            notifyAll();
        }
    }

    int count() {
        return names.size();
    }

    /** At least {@code crowdedAt} files, and flushes still adding more: holding a compaction up now piles them up. */
    boolean crowded() {
        return names.size() >= crowdedAt && nanoClock.getAsLong() - lastFlushNanos < fillingNanos;
    }

    /** At least {@code urgentAt} files: close enough to RocksDB's write slowdown that no compaction may be held up. */
    boolean urgent() {
        return names.size() >= urgentAt;
    }

    /**
     * Waits, while level 0 is crowded, to learn whether it is still filling: true once the window after the last
     * flush has passed without another one (or level 0 is no longer crowded), false as soon as level 0 is
     * {@link #urgent()} or {@link #release()} was called. A flush during the wait starts the window again rather than
     * ending the wait: a compaction that gave up at the next flush was installed cold right before a read phase
     * (docs/performance.md, "Session 61").
     */
    synchronized boolean awaitSettled() throws InterruptedException {
        while (!released) {
            if (urgent()) {
                return false;
            }
            if (!crowded()) {
                return true;
            }
            TimeUnit.NANOSECONDS.timedWait(this, lastFlushNanos + fillingNanos - nanoClock.getAsLong());
        }
        return false;
    }

    /** Ends every wait in {@link #awaitSettled()} now and later (the store is closing). */
    synchronized void release() {
        released = true;
        notifyAll();
    }
}
