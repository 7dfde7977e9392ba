package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.larder.cli.powercut.PowerCutFs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power cuts: the real jar serves from a powercutfs mount, whose backing directory keeps only what was fsynced.
 * Four connections PUT (70%) and DELETE (30%) their own keys, recording every acknowledgement; at a random moment
 * the server is SIGKILLed and the file system drops everything unsynced. The server restarts on what survived (a
 * fresh mount over the same backing directory; after the last cut, the backing directory itself, without FUSE) and
 * every key is read back and explained against its history.
 *
 * <p>A small write buffer (64 KiB, with values of 0-8 KiB) makes RocksDB flush a memtable every twenty or so writes
 * and compact every sixteen flushes, so cuts land on flushes and compactions too (each cut reports whether it caught
 * one: see {@link PowerCutFs.Dropped#duringFlushOrCompaction()}).
 *
 * <ul>
 *   <li>Both modes: RocksDB opens after every cut by itself; every value read was acknowledged or in flight; and
 *       what is lost is a suffix: no write sent after a lost write's acknowledgement survives it.</li>
 *   <li>{@code --sync}: nothing acknowledged is lost.</li>
 *   <li>Default mode: the loss is measured (acknowledged writes, and how long before the cut the first lost one was
 *       acknowledged) and printed.</li>
 * </ul>
 *
 * <p>{@code -Dlarder.powercut.cuts=N} cuts per mode (default 3), {@code -Dlarder.powercut.seed=S} replays a run,
 * {@code -Dlarder.powercut.write-buffer=SIZE} (default 64KiB, the smallest it takes) sets the server's {@code --write-buffer}.
 */
class PowerCutIT {

    private static final int THREADS = 4;
    private static final int KEYS_PER_THREAD = 250;
    private static final int MAX_VALUE = 8192;
    private static final int CUTS = Integer.getInteger("larder.powercut.cuts", 3);
    private static final long SEED = Long.getLong("larder.powercut.seed", System.nanoTime());
    private static final String WRITE_BUFFER = System.getProperty("larder.powercut.write-buffer", "64KiB");

    @TempDir
    Path dir;

    @Test
    void syncModeLosesNothingAcknowledgedAcrossPowerCuts() throws Exception {
        Totals totals = run("--sync", SEED + 1);
        assertEquals(0, totals.lost, "acknowledged writes lost in --sync mode");
    }

    @Test
    void defaultModeOpensAfterEveryPowerCutAndItsLossIsMeasured() throws Exception {
        run("default", SEED);
    }

    /** Sums over the cuts of one mode. */
    private static final class Totals {
        long puts;
        long deletes;
        long lost;
        long cutsWithLoss;
        double maxWindowMillis;
        int duringFlushOrCompaction;
    }

    /** One cut, reported once what survived it has been read back. */
    private record Cut(int number, long loadMillis, long puts, long deletes, int inFlight, long cutNanos,
                       PowerCutFs.Dropped dropped) {

        Cut dropping(PowerCutFs.Dropped what) {
            return new Cut(number, loadMillis, puts, deletes, inFlight, cutNanos, what);
        }
    }

    private Totals run(String mode, long seed) throws Exception {
        System.out.printf("power-cut test %s: %d cuts, seed %d (-Dlarder.powercut.seed=%d), --write-buffer %s%n",
                mode, CUTS, seed, seed, WRITE_BUFFER);
        Random random = new Random(seed);
        Path backing = Files.createDirectory(dir.resolve("backing"));
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        List<String> args = new ArrayList<>(List.of("--write-buffer", WRITE_BUFFER));
        if (mode.equals("--sync")) {
            args.add("--sync");
        }
        KeyHistory[][] keys = new KeyHistory[THREADS][KEYS_PER_THREAD];
        for (KeyHistory[] row : keys) {
            for (int k = 0; k < row.length; k++) {
                row[k] = new KeyHistory();
            }
        }
        Totals totals = new Totals();
        Cut previous = null;
        for (int round = 0; round < CUTS; round++) {
            try (PowerCutFs fs = PowerCutFs.mount(backing, mnt)) {
                Cut cut;
                // The data directory is below the mount root, as a server's usually is below its disk's root: its
                // own entry must be made durable too.
                try (LarderProcess larder = serve(mnt.resolve("db"), args, previous)) {
                    check(larder, keys, mode, previous, totals);
                    cut = loadUntilKilled(larder, keys, round, random);
                }
                // The server is dead, so nothing it does can reach the disk any more: now the power goes.
                previous = cut.dropping(fs.cut());
                totals.puts += cut.puts();
                totals.deletes += cut.deletes();
                totals.duringFlushOrCompaction += previous.dropped().duringFlushOrCompaction() ? 1 : 0;
            }
        }
        // The last restart is on the backing directory itself: it is a database on its own, no FUSE needed.
        try (LarderProcess larder = serve(backing.resolve("db"), args, previous)) {
            check(larder, keys, mode, previous, totals);
            larder.terminate();
            assertEquals(0, larder.awaitExit(Duration.ofSeconds(30)), larder.output());
        }
        System.out.printf("power-cut test %s: %d cuts, %d acknowledged PUTs and %d DELETEs; lost %d acknowledged "
                        + "writes in %d cuts (longest window %.0f ms); %d cuts caught a flush or compaction%n",
                mode, CUTS, totals.puts, totals.deletes, totals.lost, totals.cutsWithLoss, totals.maxWindowMillis,
                totals.duringFlushOrCompaction);
        assertTrue(totals.puts > CUTS && totals.deletes > 0, "the load acknowledged too little to prove anything");
        return totals;
    }

    /** Runs the writers for a random 0.3-2.5 s, then SIGKILLs the server and waits for it to be gone. */
    private static Cut loadUntilKilled(LarderProcess larder, KeyHistory[][] keys, int round, Random random)
            throws Exception {
        long cutAfter = 300 + random.nextInt(2200);
        AtomicLong puts = new AtomicLong();
        AtomicLong deletes = new AtomicLong();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        Load load = new Load(larder.port(), keys, random.nextLong(), puts, deletes, errors);
        long started = System.nanoTime();
        load.start();
        Thread.sleep(cutAfter);
        load.killed = true;
        long cutNanos = System.nanoTime();
        larder.kill();
        larder.awaitExit(Duration.ofSeconds(30));
        load.join();
        if (!errors.isEmpty()) {
            fail("cut " + round + ": " + String.join("\n", errors) + "\n" + larder.output());
        }
        int inFlight = 0;
        for (KeyHistory[] row : keys) {
            for (KeyHistory h : row) {
                inFlight += h.pending() ? 1 : 0;
            }
        }
        return new Cut(round, (cutNanos - started) / 1_000_000, puts.get(), deletes.get(), inFlight, cutNanos, null);
    }

    /** Starts the server; failing to start after a cut means RocksDB did not open what the cut left. */
    private static LarderProcess serve(Path data, List<String> args, Cut after) throws Exception {
        long started = System.nanoTime();
        try {
            LarderProcess larder = LarderProcess.serve(data, args.toArray(String[]::new));
            if (after != null) {
                System.out.printf("power-cut restart after cut %d: listening after %d ms%s%n", after.number(),
                        (System.nanoTime() - started) / 1_000_000,
                        larder.output().contains("recovery:") ? " (logged a recovery warning)" : "");
            }
            return larder;
        } catch (IOException e) {
            throw new AssertionError((after == null ? "first start" : "restart after cut " + after.number()
                    + " (which dropped " + after.dropped() + ")") + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Reads every key back and explains it against its history: fails on a value never acknowledged, on a hole
     * (a survivor sent after a lost write was acknowledged), and in --sync mode on any loss; prints the cut's line.
     */
    private static void check(LarderProcess larder, KeyHistory[][] keys, String mode, Cut cut, Totals totals)
            throws Exception {
        byte[][][] seen = readAll(larder);
        List<String> failures = new ArrayList<>();
        List<String> losses = new ArrayList<>();
        int lostPuts = 0;
        int lostDeletes = 0;
        long oldestLostAck = Long.MAX_VALUE;
        long newestSurvivorSent = Long.MIN_VALUE;
        for (int t = 0; t < THREADS; t++) {
            for (int k = 0; k < KEYS_PER_THREAD; k++) {
                KeyHistory.Outcome o = keys[t][k].explain(seen[t][k]);
                if (o.unexplained()) {
                    failures.add(id(t, k) + ": " + o.description());
                } else if (o.lost() > 0) {
                    losses.add(id(t, k) + ": " + o.description());
                }
                lostPuts += o.lostPuts();
                lostDeletes += o.lostDeletes();
                oldestLostAck = Math.min(oldestLostAck, o.oldestLostAckNanos());
                newestSurvivorSent = Math.max(newestSurvivorSent, o.survivorSentNanos());
                keys[t][k].reset(seen[t][k]);
            }
        }
        if (cut == null) {
            assertTrue(failures.isEmpty(), "before any cut: " + failures);
            return;
        }
        int lost = lostPuts + lostDeletes;
        double windowMillis = lost == 0 ? 0 : (cut.cutNanos() - oldestLostAck) / 1e6;
        System.out.printf("power-cut %s cut %d: %d ms of load, %d PUT + %d DELETE acknowledged, %d in flight; "
                        + "lost %d PUT + %d DELETE%s; dropped %d bytes unsynced in %s, entries %s%s%n",
                mode, cut.number(), cut.loadMillis(), cut.puts(), cut.deletes(), cut.inFlight(), lostPuts, lostDeletes,
                lost == 0 ? "" : String.format(" (acknowledged in the last %.0f ms before the cut)", windowMillis),
                cut.dropped().dirtyBytes(), cut.dropped().dirtyFiles(), cut.dropped().unsyncedEntries(),
                cut.dropped().duringFlushOrCompaction() ? " [caught a flush/compaction]" : "");
        totals.lost += lost;
        totals.cutsWithLoss += lost > 0 ? 1 : 0;
        totals.maxWindowMillis = Math.max(totals.maxWindowMillis, windowMillis);
        if (newestSurvivorSent > oldestLostAck) {
            failures.add("a hole: a write sent " + (newestSurvivorSent - oldestLostAck) / 1_000_000
                    + " ms after a lost write was acknowledged survived (recovery is not to a point in time)");
        }
        if (mode.equals("--sync") && lost > 0) {
            failures.addAll(losses);
        }
        if (!failures.isEmpty()) {
            fail("after cut " + cut.number() + " (dropped " + cut.dropped() + "): " + failures.size()
                    + " failure(s):\n" + String.join("\n", failures.subList(0, Math.min(20, failures.size())))
                    + "\n" + larder.output());
        }
    }

    /** Every key's value (null: absent), one reader per writer's key range. */
    private static byte[][][] readAll(LarderProcess larder) throws Exception {
        byte[][][] seen = new byte[THREADS][KEYS_PER_THREAD][];
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            Thread reader = new Thread(() -> {
                try (HttpConnection http = new HttpConnection(larder.port(), 30_000)) {
                    for (int k = 0; k < KEYS_PER_THREAD; k++) {
                        HttpConnection.Response r = http.exchange("GET", target(thread, k), null);
                        if (r.status() == 200) {
                            seen[thread][k] = r.body();
                        } else if (r.status() != 404) {
                            errors.add(id(thread, k) + ": GET answered " + r.status());
                        }
                    }
                } catch (IOException e) {
                    errors.add("reader " + thread + ": " + e);
                }
            }, "reader-" + t);
            reader.start();
            readers.add(reader);
        }
        for (Thread reader : readers) {
            reader.join();
        }
        if (!errors.isEmpty()) {
            fail(String.join("\n", errors) + "\n" + larder.output());
        }
        return seen;
    }

    /** Writer threads, one connection each, PUT (70%) or DELETE (30%) on their own keys until the server dies. */
    private static final class Load {
        private final List<Thread> threads = new ArrayList<>();
        volatile boolean killed;

        Load(int port, KeyHistory[][] keys, long seed, AtomicLong puts, AtomicLong deletes,
             ConcurrentLinkedQueue<String> errors) {
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Random random = new Random(seed + t);
                threads.add(new Thread(() -> {
                    try (HttpConnection http = new HttpConnection(port, 30_000)) {
                        while (true) {
                            int k = random.nextInt(KEYS_PER_THREAD);
                            boolean delete = random.nextInt(10) < 3;
                            byte[] value = delete ? null : new byte[random.nextInt(MAX_VALUE + 1)];
                            if (value != null) {
                                random.nextBytes(value);
                            }
                            keys[thread][k].sending(value, System.nanoTime());
                            HttpConnection.Response r = http.exchange(delete ? "DELETE" : "PUT", target(thread, k),
                                    value);
                            if (r.status() != (delete ? 202 : 201)) {
                                errors.add(id(thread, k) + ": " + (delete ? "DELETE" : "PUT") + " answered "
                                        + r.status() + " " + new String(r.body(), StandardCharsets.UTF_8));
                                return;
                            }
                            keys[thread][k].acknowledged(System.nanoTime());
                            (delete ? deletes : puts).incrementAndGet();
                        }
                    } catch (IOException e) {
                        if (!killed) {
                            errors.add("writer " + thread + " failed before the cut: " + e);
                        }
                    }
                }, "writer-" + t));
            }
        }

        void start() {
            threads.forEach(Thread::start);
        }

        void join() throws InterruptedException {
            for (Thread t : threads) {
                t.join();
            }
        }
    }

    private static String id(int thread, int key) {
        return String.format("t%d-k%03d", thread, key);
    }

    /** Keys carry a raw 0xFF byte: they are bytes, not text. */
    private static String target(int thread, int key) {
        return "/v0/entity?id=" + id(thread, key) + "%FF";
    }
}
