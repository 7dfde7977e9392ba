package dev.larder.storage;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.CompactionJobInfo;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.RocksDB;
import org.rocksdb.Status;
import org.rocksdb.TableProperties;

/**
 * Reads every flush's and compaction's output files into the block cache as soon as RocksDB has installed them.
 *
 * <p>Why: a cached block is named by its file, so when a compaction replaces the files that held most keys, every
 * lookup of those keys misses the cache until its block is read again. After a write phase that is the whole data
 * set at once, and on a machine that pages out file cache idle for half a minute (this one does, through DAMON) the
 * first GETs after it went to the disk: 11-12k reads/s and a p99 of seconds (docs/performance.md, "Session 9").
 * The newest flushes' files (level 0) go cold the same way when they sit unread. RocksDB can prepopulate the cache
 * with a flush's output but not with a compaction's, and its Java API exposes neither; this does both by reading
 * each new file once, whole.
 *
 * <p>It runs in RocksDB's callback, on the flush or compaction thread itself, so with {@code --background-priority
 * low} it reads at nice 19 (only the CPU the foreground leaves idle), right after the files were written (their
 * pages are still in memory: no disk reads), and it delays that thread's next job by the time it takes. Outputs
 * larger than {@code budgetBytes} (uncompressed) are left alone: warming them would evict blocks that are in use.
 */
final class NewTableWarmer extends AbstractEventListener {

    /** Reads the given table files (full paths) through the block cache; false when the store is closing. */
    @FunctionalInterface
    interface CacheFiller {
        boolean fill(List<String> tableFiles);
    }

    private final long budgetBytes;
    private final AtomicLong warmedJobs = new AtomicLong();
    private final AtomicLong skippedJobs = new AtomicLong();
    private volatile CacheFiller filler;

    NewTableWarmer(long budgetBytes) {
        super(EnabledEventCallback.ON_FLUSH_COMPLETED, EnabledEventCallback.ON_COMPACTION_COMPLETED);
        this.budgetBytes = budgetBytes;
    }

    /** Starts warming; compactions that finish before this (during open) are left cold. */
    void start(CacheFiller filler) {
        this.filler = filler;
    }

    @Override
    public void onFlushCompleted(RocksDB db, FlushJobInfo info) {
        TableProperties table = info.getTableProperties();
        warm(List.of(info.getFilePath()), table == null ? 0 : table.getRawKeySize() + table.getRawValueSize());
    }

    @Override
    public void onCompactionCompleted(RocksDB db, CompactionJobInfo info) {
        if (info.status().getCode() != Status.Code.Ok) {
            return;
        }
        long rawBytes = 0;
        for (TableProperties table : info.tableProperties().values()) {
            rawBytes += table.getRawKeySize() + table.getRawValueSize();
        }
        warm(info.outputFiles(), rawBytes);
    }

    private void warm(List<String> files, long rawBytes) {
        CacheFiller current = filler;
        if (current == null || files.isEmpty()) {
            return;
        }
        if (rawBytes > budgetBytes) {
            skippedJobs.incrementAndGet();
            return;
        }
        if (current.fill(files)) {
            warmedJobs.incrementAndGet();
        }
    }

    /** Flushes and compactions whose output was read into the cache. */
    long warmedJobs() {
        return warmedJobs.get();
    }

    /** Flushes and compactions whose output was larger than the budget. */
    long skippedJobs() {
        return skippedJobs.get();
    }
}
