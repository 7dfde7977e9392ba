package dev.larder.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.CompactionJobInfo;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.RocksDB;
import org.rocksdb.Status;
import org.rocksdb.TableFileCreationInfo;
import org.rocksdb.TableFileCreationReason;
import org.rocksdb.TableProperties;

/**
 * Reads every flush's and compaction's output files into the block cache, before or right after RocksDB installs them.
 *
 * <p>Why: a cached block is named by its file, so when a compaction replaces the files that held most keys, every
 * lookup of those keys misses the cache until its block is read again. After a write phase that is the whole data
 * set at once, and on a machine that pages out file cache idle for half a minute (this one does, through DAMON) the
 * first GETs after it went to the disk: thousands of reads/s and a p99 of hundreds of ms to seconds
 * (docs/performance.md, "Session 9"). The newest flushes' files (level 0) go cold the same way when they sit unread.
 * RocksDB can prepopulate the cache with a flush's output but not with a compaction's, and its Java API exposes
 * neither; this does both by reading each new file once, whole, right after it was written (its pages are still in
 * memory: no disk reads).
 *
 * <p>A compaction's output files are read on the compaction's own thread, as each one is finished and before the
 * compaction installs them, so lookups move from the old files' cached blocks to the new files' cached blocks at
 * once. Read after the installation, they were cold for as long as the warming took: at a full core, with the
 * reading at nice 19, that was seconds, and a phase at 75% of capacity with every GET missing once fell behind by
 * 150-700 ms (docs/performance.md, "Session 17"). Holding a compaction up lets level-0 files pile up meanwhile if
 * flushes keep coming, so from half of RocksDB's write-slowdown trigger on, while flushes come ({@link Level0Files}),
 * the compaction waits until they stop ({@link #LEVEL0_FILLING} after the last one) before its output is read. From 0.7
 * of the trigger on a compaction is never held: a wait ends, no read starts there, and a read under way stops, since a
 * read begun in a read phase took 17-50 s at nice 19 and ran on into the next write phase (docs/performance.md,
 * "Session 52": level 0 at 30-32 files). The rest of the file is read after installation, from the key where the read
 * stopped: begun again from the first key, that read went over the 75-89% already cached while lookups missed the rest
 * for seconds into the next read phase ("Session 77"). The wait used to end at the next flush
 * instead, and a compaction that ended late in a write phase was then installed cold just before the read phase that
 * followed (p99 252-268 ms there: "Session 61"). A flush's file is always read after it, on a thread of its own:
 * reading it first doubled a flush's CPU time (80 to 160-260 ms per 32 MiB), and at nice 19 flushes then fell behind
 * the memtables until RocksDB stopped writes (docs/performance.md, "Session 18"). With {@code lowPriority} that thread
 * runs at nice 19, like the flushes and compactions, so it only uses CPU the foreground leaves idle; when the priority
 * cannot be lowered nothing is warmed, rather than compete with the event loops. If it falls behind, older files are
 * dropped (a later compaction has usually replaced them). Outputs larger than {@code budgetBytes} (uncompressed) are
 * left alone: warming them would evict blocks that are in use.
 */
final class NewTableWarmer extends AbstractEventListener {

    /**
     * Reads a table file (full path) through the block cache from {@code fromKey} on ({@link #FIRST_KEY}: from its
     * first key); null once read to its end, else the key to resume from, when the store is closing or {@code stop}
     * turned true before it was done.
     */
    @FunctionalInterface
    interface CacheFiller {
        byte[] fill(String tableFile, byte[] fromKey, BooleanSupplier stop);
    }

    /** Bytewise the least key: a read from it starts at a file's first key. */
    static final byte[] FIRST_KEY = new byte[0];

    private static final String THREAD_NAME = "larder-warmer";
    /**
     * How long after the last flush level 0 still counts as filling up. In a write phase at 75% of capacity a 32 MiB
     * memtable was flushed every 2.3-4.9 s (docs/performance.md, "Session 52"); in a read phase flushes are rare.
     */
    private static final Duration LEVEL0_FILLING = Duration.ofSeconds(10);
    /** How often a read that gave way to the flushes asks whether they have caught up. */
    static final Duration FLUSHES_CHECK = Duration.ofMillis(20);

    private final long budgetBytes;
    private final boolean lowPriority;
    private final AtomicLong warmedJobs = new AtomicLong();
    private final AtomicLong skippedJobs = new AtomicLong();
    /** Names of output files read before their job installed them, until its completion event sees them. */
    private final Set<String> warmedBeforeInstall = ConcurrentHashMap.newKeySet();
    /**
     * Names of output files whose read before installation stopped part way (level 0 turned urgent), and the key it
     * stopped at: the read after installation goes on from there, since what was read is cached under the file's
     * identity already and a read from the start went over it again at nice 19 while lookups missed the rest.
     */
    private final Map<String, byte[]> partlyWarmed = new ConcurrentHashMap<>();
    private final AtomicLong filesWarmedBeforeInstall = new AtomicLong();
    private final AtomicLong pausesForFlushes = new AtomicLong();
    private final Level0Files level0;
    private final ThreadPoolExecutor thread;
    private volatile CacheFiller filler;
    private volatile BooleanSupplier flushesBehind = () -> false;
    private volatile boolean unavailable;

    /**
     * {@code level0SlowdownTrigger}: RocksDB's {@code level0_slowdown_writes_trigger}; from half that many level-0
     * files on, while flushes come, a compaction waits for them to stop before its output is read, and from 0.7 of it
     * on its output is read after installation, so compactions are not held up.
     */
    NewTableWarmer(long budgetBytes, boolean lowPriority, int level0SlowdownTrigger) {
        super(EnabledEventCallback.ON_TABLE_FILE_CREATED, EnabledEventCallback.ON_FLUSH_COMPLETED,
                EnabledEventCallback.ON_COMPACTION_COMPLETED);
        this.budgetBytes = budgetBytes;
        this.level0 = new Level0Files(Math.max(1, level0SlowdownTrigger / 2),
                Math.max(1, level0SlowdownTrigger * 7 / 10), LEVEL0_FILLING, System::nanoTime);
        this.lowPriority = lowPriority;
        this.thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(4), runnable -> {
            Thread t = new Thread(runnable, THREAD_NAME);
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.DiscardOldestPolicy());
    }

    /**
     * Starts warming with {@code filler}; files written before this (during open) are left cold. While
     * {@code flushesBehind} says so, this thread's reads stop and wait for it to turn false, then go on from where they
     * stopped. Returns once the thread's priority is settled, so {@link #unavailable()} is final.
     *
     * <p>Why: the flushes and this thread share what the event loops leave of the core, at the same nice 19. Behind a
     * write phase at 75% of capacity that was under a tenth of the core: a flush took about 0.3 s of CPU per 32 MiB
     * memtable and this thread's reads about half as much again; the memtables filled up to RocksDB's limit and it
     * stopped every write for about a second, a p99 of 0.4-1.6 s (docs/performance.md, "Session 81"). A file read
     * later costs some lookups a cache miss; a write stop costs every request a second.
     */
    void start(CacheFiller filler, BooleanSupplier flushesBehind) {
        this.flushesBehind = flushesBehind;
        if (lowPriority) {
            try {
                unavailable = !thread.submit(NewTableWarmer::lowerThisThreadsPriority).get(15, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                unavailable = true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unavailable = true;
            }
        }
        this.filler = filler;
    }

    @Override
    public void onFlushCompleted(RocksDB db, FlushJobInfo info) {
        TableProperties table = info.getTableProperties();
        flushed(info.getFilePath(), table == null ? 0 : table.getRawKeySize() + table.getRawValueSize());
    }

    /** A flush wrote {@code file} to level 0: it is read into the cache on this warmer's thread. */
    void flushed(String file, long rawBytes) {
        level0.flushed(file);
        submit(List.of(new TableRead(file, FIRST_KEY)), rawBytes);
    }

    /**
     * Called on the flush's or compaction's thread when it has finished writing one output file, before the job
     * installs it: reads a compaction's file into the cache there and then, while holding it up is cheap (class
     * comment).
     */
    @Override
    public void onTableFileCreated(TableFileCreationInfo info) {
        CacheFiller current = filler;
        TableProperties table = info.getTableProperties();
        if (info.getReason() != TableFileCreationReason.COMPACTION || current == null || unavailable
                || info.getStatus().getCode() != Status.Code.Ok || info.getFileSize() == 0 || table == null
                || table.getRawKeySize() + table.getRawValueSize() > budgetBytes
                || !levelZeroLetsThisWait()) {
            return;
        }
        readBeforeInstall(info.getFilePath());
    }

    /** Reads a compaction's output file on the compaction's thread, until level 0 turns urgent. */
    void readBeforeInstall(String file) {
        CacheFiller current = filler;
        if (current == null) {
            return;
        }
        byte[] stoppedAt = current.fill(file, FIRST_KEY, level0::urgent);
        if (stoppedAt == null) {
            warmedBeforeInstall.add(nameOf(file));
            filesWarmedBeforeInstall.incrementAndGet();
        } else {
            partlyWarmed.put(nameOf(file), stoppedAt);
        }
    }

    private boolean levelZeroLetsThisWait() {
        try {
            // At once when level 0 is not crowded; otherwise once flushes stop, unless it turns urgent first (then
            // this job's later output files find it urgent and do not wait either).
            return level0.awaitSettled();
        } catch (InterruptedException e) {
            // A RocksDB thread: nothing of ours interrupts it, and a flag left set would make every later wait on it
            // return at once.
            return false;
        }
    }

    @Override
    public void onCompactionCompleted(RocksDB db, CompactionJobInfo info) {
        compacted(info.inputFiles(), info.outputFiles(), info.outputLevel(), () -> rawBytesOf(info),
                info.status().getCode() == Status.Code.Ok);
    }

    // Each table's properties come through JNI: asked for only when some output is left to read.
    private static long rawBytesOf(CompactionJobInfo info) {
        long rawBytes = 0;
        for (TableProperties table : info.tableProperties().values()) {
            rawBytes += table.getRawKeySize() + table.getRawValueSize();
        }
        return rawBytes;
    }

    /**
     * A compaction ended ({@code installed}: its outputs replaced its inputs): the outputs not read before, or read
     * part way, are read into the cache on this warmer's thread, each from where its earlier read stopped.
     */
    void compacted(List<String> inputs, List<String> outputs, int outputLevel, LongSupplier rawBytes,
            boolean installed) {
        List<TableRead> cold = new ArrayList<>();
        for (String file : outputs) {
            String name = nameOf(file);
            byte[] stoppedAt = partlyWarmed.remove(name);
            if (!warmedBeforeInstall.remove(name)) {
                cold.add(new TableRead(file, stoppedAt == null ? FIRST_KEY : stoppedAt));
            }
        }
        if (!installed) {
            return;
        }
        level0.compacted(inputs, outputs, outputLevel);
        if (cold.isEmpty() && !outputs.isEmpty()) {
            warmedJobs.incrementAndGet();
            return;
        }
        submit(cold, rawBytes.getAsLong());
    }

    // Events name a file by its full path or by the database directory and its name; the name alone is unique.
    static String nameOf(String file) {
        return Path.of(file).getFileName().toString();
    }

    /** A table file to read into the cache, from {@code fromKey} on. */
    private record TableRead(String file, byte[] fromKey) {
    }

    private void submit(List<TableRead> files, long rawBytes) {
        if (filler == null || unavailable || files.isEmpty() || thread.isShutdown()) {
            return;
        }
        if (rawBytes > budgetBytes) {
            skippedJobs.incrementAndGet();
            return;
        }
        thread.execute(() -> {
            CacheFiller current = filler;
            if (unavailable || current == null) {
                return;
            }
            for (TableRead table : files) {
                if (!readGivingWayToFlushes(current, table)) {
                    return; // the store is closing
                }
            }
            warmedJobs.incrementAndGet();
        });
    }

    /** Reads one file to its end, pausing while the flushes are behind; false once the store is closing. */
    private boolean readGivingWayToFlushes(CacheFiller current, TableRead table) {
        boolean[] gaveWay = {false};
        BooleanSupplier giveWay = () -> gaveWay[0] = flushesBehind.getAsBoolean();
        byte[] from = table.fromKey();
        while ((from = current.fill(table.file(), from, giveWay)) != null) {
            if (!gaveWay[0] || !awaitFlushesCaughtUp()) {
                return false;
            }
            gaveWay[0] = false;
            pausesForFlushes.incrementAndGet();
        }
        return true;
    }

    // False when stop() interrupted the wait.
    private boolean awaitFlushesCaughtUp() {
        while (flushesBehind.getAsBoolean()) {
            LockSupport.parkNanos(FLUSHES_CHECK.toNanos());
            if (Thread.interrupted()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Linux gives each thread its own nice value, and {@code setpriority} takes a thread id where it takes a process
     * id; Java has no call for it, so this asks {@code renice} (util-linux, in every Debian) about this thread.
     */
    private static boolean lowerThisThreadsPriority() {
        try {
            Path self = Files.readSymbolicLink(Path.of("/proc/thread-self")); // "<pid>/task/<tid>"
            String tid = self.getFileName().toString();
            Process renice = new ProcessBuilder("renice", "-n", "19", "-p", tid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return renice.waitFor(10, TimeUnit.SECONDS) && renice.exitValue() == 0;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether a file is being read into the cache right now (or is waiting to be). */
    boolean busy() {
        return thread.getActiveCount() > 0 || !thread.getQueue().isEmpty();
    }

    /** Whether warming is off because this thread's priority could not be lowered. */
    boolean unavailable() {
        return unavailable;
    }

    /** Flushes and compactions whose output was read into the cache. */
    long warmedJobs() {
        return warmedJobs.get();
    }

    /** Compaction output files read into the cache before the compaction installed them. */
    long filesWarmedBeforeInstall() {
        return filesWarmedBeforeInstall.get();
    }

    /** Times a read stopped and waited for the flushes to catch up. */
    long pausesForFlushes() {
        return pausesForFlushes.get();
    }

    /** Flushes and compactions whose output was larger than the budget. */
    long skippedJobs() {
        return skippedJobs.get();
    }

    /** Stops taking files; the file being read stops on its own once the store is closing. */
    void stop() {
        level0.release();
        thread.shutdownNow();
    }

    /** Waits for the warming thread to end, after {@link #stop()}. */
    boolean awaitStopped(long millis) throws InterruptedException {
        return thread.awaitTermination(millis, TimeUnit.MILLISECONDS);
    }
}
