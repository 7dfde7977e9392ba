import dev.larder.storage.*;
import java.nio.file.*;
import java.util.*;
import java.util.stream.*;

// How long a store takes to open after a crash with every memtable full (docs/performance.md, "Session 73"): the
// write-ahead log it replays grows with --memtables. Two steps, each its own JVM:
//   taskset -c 1 java -cp cli/target/larder.jar bench/probe/WalReplayCost.java fill DIR MEMTABLES
//     puts 64-byte values from one thread on one core until RocksDB stops writes (every memtable full behind a
//     flush at nice 19, as on a busy server), then kills its own JVM with SIGKILL: a process crash.
//   taskset -c 1 java -cp cli/target/larder.jar bench/probe/WalReplayCost.java open DIR MEMTABLES
//     times RocksDbStore.open on what the crash left (log replay, and the flushes recovery does), and checks the
//     last acknowledged key is there.
public class WalReplayCost {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        int memtables = Integer.parseInt(args[2]);
        StoreOptions options = new StoreOptions(dir, 256L << 20, 0, false, true, true,
                StoreOptions.DEFAULT_WRITE_BUFFER_BYTES, TableWarming.OFF, memtables);
        if (args[0].equals("fill")) {
            RocksDbStore store = RocksDbStore.open(options);
            long[] acked = {-1};
            Thread writer = new Thread(() -> {
                byte[] value = new byte[64];
                Arrays.fill(value, (byte) 'v');
                for (long i = 0; ; i++) {
                    store.put(("k" + i).getBytes(), value);
                    acked[0] = i;
                }
            }, "writer");
            writer.setDaemon(true);
            long start = System.nanoTime();
            writer.start();
            while (true) {
                Thread.sleep(5);
                boolean stopped = store.property("rocksdb.is-write-stopped").orElse(0) == 1;
                if (stopped || System.nanoTime() - start > 120_000_000_000L) {
                    long mem = store.property("rocksdb.cur-size-all-mem-tables").orElse(-1);
                    System.out.printf("fill: %s after %.1f s, last acknowledged k%d, memtables %d MiB, logs %d MiB%n",
                            stopped ? "writes stopped" : "no stop", (System.nanoTime() - start) / 1e9, acked[0],
                            mem >> 20, logBytes(dir) >> 20);
                    Files.writeString(dir.resolve("last-acked"), Long.toString(acked[0]));
                    // SIGKILL, not Runtime.halt: halt ends in exit(), whose static destructors join RocksDB's
                    // thread pools, and the flushes running then finish first (the logs shrank by half).
                    new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start();
                    Thread.sleep(60_000);
                }
            }
        }
        long logs = logBytes(dir);
        long t0 = System.nanoTime();
        try (RocksDbStore store = RocksDbStore.open(options)) {
            double seconds = (System.nanoTime() - t0) / 1e9;
            long last = Long.parseLong(Files.readString(dir.resolve("last-acked")).trim());
            boolean there = store.get(("k" + last).getBytes()) != null;
            System.out.printf("open: %.2f s for %d MiB of logs, memtables=%d; last acknowledged k%d %s%n", seconds,
                    logs >> 20, memtables, last, there ? "read back" : "MISSING");
        }
    }

    static long logBytes(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".log")).mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
