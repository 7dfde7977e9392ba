package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability under {@code kill -9}: client threads stream PUTs and DELETEs over their own keys, recording every
 * acknowledgement; the process is SIGKILLed at a random moment, restarted on the same directory, and every key must
 * read back as its last acknowledged state (or as the one write that was in flight, unacknowledged, when the process
 * died). A lost PUT or a resurrected DELETE fails the test.
 *
 * <p>{@code -Dlarder.crash.kills=N} (default 20) is split between the default mode and {@code --sync};
 * {@code -Dlarder.crash.seed=S} replays a run (the seed is printed).
 */
class CrashDurabilityIT {

    private static final int THREADS = 4;
    private static final int KEYS_PER_THREAD = 250;
    private static final int MAX_VALUE = 4096;
    private static final int KILLS = Integer.getInteger("larder.crash.kills", 20);
    private static final long SEED = Long.getLong("larder.crash.seed", System.nanoTime());

    @TempDir
    Path dir;

    @Test
    void defaultModeLosesNoAcknowledgedWriteAndResurrectsNoDelete() throws Exception {
        run("default", (KILLS + 1) / 2, SEED);
    }

    @Test
    void syncModeLosesNoAcknowledgedWriteAndResurrectsNoDelete() throws Exception {
        run("--sync", KILLS / 2, SEED + 1);
    }

    /** What a key must read as after a crash. */
    private static final class KeyState {
        byte[] acked;          // null: absent (never written, or deleted)
        boolean pending;       // a request was sent and not acknowledged when the server died
        byte[] pendingValue;   // null: the pending request was a DELETE
    }

    private void run(String mode, int kills, long seed) throws Exception {
        System.out.printf("crash test %s: %d kills, seed %d (-Dlarder.crash.seed=%d)%n", mode, kills, seed, seed);
        Random random = new Random(seed);
        Path data = dir.resolve("data");
        // No JIT warm-up: it runs on a throwaway store, so it cannot change what survives a kill, and at 22 starts
        // its seconds were most of this test's time.
        String[] args = mode.equals("--sync") ? new String[] {"--sync", "--warmup-requests", "0"}
                : new String[] {"--warmup-requests", "0"};
        KeyState[][] keys = new KeyState[THREADS][KEYS_PER_THREAD];
        for (KeyState[] row : keys) {
            for (int k = 0; k < row.length; k++) {
                row[k] = new KeyState();
            }
        }
        AtomicLong puts = new AtomicLong();
        AtomicLong deletes = new AtomicLong();
        long inFlightAtKill = 0;
        long loadNanos = 0;
        for (int round = 0; round < kills; round++) {
            try (LarderProcess larder = LarderProcess.serve(data, args)) {
                verify(larder, keys, "after kill " + round);
                long killAfter = 200 + random.nextInt(1300);
                ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
                Load load = new Load(larder.port(), keys, random.nextLong(), puts, deletes, errors);
                long started = System.nanoTime();
                load.start();
                Thread.sleep(killAfter);
                load.killed = true;
                larder.kill();
                larder.awaitExit(Duration.ofSeconds(30));
                loadNanos += System.nanoTime() - started;
                load.join();
                if (!errors.isEmpty()) {
                    fail("round " + round + ": " + String.join("\n", errors) + "\n" + larder.output());
                }
                for (KeyState[] row : keys) {
                    for (KeyState s : row) {
                        inFlightAtKill += s.pending ? 1 : 0;
                    }
                }
            }
        }
        try (LarderProcess larder = LarderProcess.serve(data, args)) {
            verify(larder, keys, "after kill " + kills);
            larder.terminate();
            assertEquals(0, larder.awaitExit(Duration.ofSeconds(30)), larder.output());
        }
        System.out.printf("crash test %s: %d kills, %d acknowledged PUTs and %d acknowledged DELETEs over %.1f s of "
                        + "load, %d requests in flight at the kills; every acknowledged one survived%n",
                mode, kills, puts.get(), deletes.get(), loadNanos / 1e9, inFlightAtKill);
        assertTrue(puts.get() > kills && deletes.get() > 0, "the load acknowledged too little to prove anything");
    }

    /** Reads every key of every thread; each must match its acknowledged state or its in-flight write. */
    private static void verify(LarderProcess larder, KeyState[][] keys, String when) throws Exception {
        List<String> failures = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            Thread reader = new Thread(() -> {
                try (HttpConnection http = new HttpConnection(larder.port(), 30_000)) {
                    for (int k = 0; k < KEYS_PER_THREAD; k++) {
                        KeyState s = keys[thread][k];
                        HttpConnection.Response r = http.exchange("GET", target(thread, k), null);
                        byte[] seen = switch (r.status()) {
                            case 200 -> r.body();
                            case 404 -> null;
                            default -> {
                                synchronized (failures) {
                                    failures.add(id(thread, k) + ": GET answered " + r.status());
                                }
                                yield s.acked;
                            }
                        };
                        boolean ok = Arrays.equals(seen, s.acked) || (s.pending && Arrays.equals(seen, s.pendingValue));
                        if (!ok) {
                            synchronized (failures) {
                                failures.add(id(thread, k) + ": acknowledged " + describe(s.acked)
                                        + (s.pending ? " (then in flight: " + describe(s.pendingValue) + ")" : "")
                                        + " but read " + describe(seen)
                                        + (s.acked == null && seen != null ? " -- a deleted key came back" : ""));
                            }
                        }
                        // What survived a restart is durable from now on.
                        s.acked = seen;
                        s.pending = false;
                        s.pendingValue = null;
                    }
                } catch (IOException e) {
                    synchronized (failures) {
                        failures.add("verification connection failed: " + e);
                    }
                }
            }, "verify-" + t);
            reader.start();
            readers.add(reader);
        }
        for (Thread reader : readers) {
            reader.join();
        }
        if (!failures.isEmpty()) {
            fail(when + ": " + failures.size() + " key(s) wrong:\n" + String.join("\n",
                    failures.subList(0, Math.min(20, failures.size()))) + "\n" + larder.output());
        }
    }

    /** Writer threads, one connection each, PUT (70%) or DELETE (30%) on their own keys until the server dies. */
    private static final class Load {
        private final List<Thread> threads = new ArrayList<>();
        volatile boolean killed;

        Load(int port, KeyState[][] keys, long seed, AtomicLong puts, AtomicLong deletes,
             ConcurrentLinkedQueue<String> errors) {
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Random random = new Random(seed + t);
                threads.add(new Thread(() -> {
                    try (HttpConnection http = new HttpConnection(port, 30_000)) {
                        while (true) {
                            int k = random.nextInt(KEYS_PER_THREAD);
                            KeyState s = keys[thread][k];
                            boolean delete = random.nextInt(10) < 3;
                            byte[] value = delete ? null : new byte[random.nextInt(MAX_VALUE + 1)];
                            if (value != null) {
                                random.nextBytes(value);
                            }
                            s.pending = true;
                            s.pendingValue = value;
                            HttpConnection.Response r = http.exchange(delete ? "DELETE" : "PUT", target(thread, k),
                                    value);
                            if (r.status() != (delete ? 202 : 201)) {
                                errors.add(id(thread, k) + ": " + (delete ? "DELETE" : "PUT") + " answered "
                                        + r.status() + " " + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
                                return;
                            }
                            s.acked = value;
                            s.pending = false;
                            s.pendingValue = null;
                            (delete ? deletes : puts).incrementAndGet();
                        }
                    } catch (IOException e) {
                        if (!killed) {
                            errors.add("writer " + thread + " failed before the kill: " + e);
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

    private static String describe(byte[] value) {
        if (value == null) {
            return "<absent>";
        }
        String hex = HexFormat.of().formatHex(value, 0, Math.min(8, value.length));
        return value.length + " bytes [" + hex + (value.length > 8 ? "..." : "") + "]";
    }
}
