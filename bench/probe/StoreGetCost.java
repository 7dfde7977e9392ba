import dev.larder.storage.*;
import java.lang.management.*;
import java.lang.reflect.*;
import java.nio.file.*;
import java.util.*;
import org.rocksdb.*;

// What a GET costs in the store against the number of level-0 files, with and without the row cache (docs/performance.md,
// "Session 19"). The server's store options (the block cache at 6026 MiB, the server's 25% of this 24 GiB machine);
// compactions are off while level 0 fills, then everything is compacted. Uses RocksDbStore's package-private test hooks.
//   taskset -c 1 java -cp cli/target/larder.jar bench/probe/StoreGetCost.java FILES [norow]   (-Dspace=N keys, -Dbc=MiB)
public class StoreGetCost {
    static Object call(Object o, String m, Class<?>[] t, Object... a) throws Exception {
        Method x = o.getClass().getDeclaredMethod(m, t); x.setAccessible(true); return x.invoke(o, a);
    }
    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("store-get-cost");
        int files = Integer.parseInt(args[0]);
        int keysPerFile = 320_000, space = Integer.getInteger("space", 3_000_000);
        boolean rowCache = args.length < 2 || !args[1].equals("norow");
        StoreOptions so = new StoreOptions(dir, Long.getLong("bc", 6026L) << 20, rowCache ? 64L << 20 : 0, false, true,
                true, StoreOptions.DEFAULT_WRITE_BUFFER_BYTES, StoreOptions.DEFAULT_TABLE_WARMING,
                StoreOptions.DEFAULT_MEMTABLES);
        RocksDbStore store = RocksDbStore.open(so);
        // The string properties below have no long form, which is all RocksDbStore.property reads.
        Field f = RocksDbStore.class.getDeclaredField("db"); f.setAccessible(true);
        RocksDB db = (RocksDB) f.get(store);
        call(store, "autoCompactions", new Class<?>[] {boolean.class}, false);
        Random r = new Random(1);
        byte[] value = new byte[64];
        for (int i = 0; i < 64; i++) value[i] = (byte) ('a' + i % 26);
        long id = 0;
        for (int file = 0; file < files; file++) {
            for (int i = 0; i < keysPerFile; i++) {
                store.put(("k" + (id++ % space)).getBytes(), value);
            }
            call(store, "flushMemtables", new Class<?>[0]);
        }
        System.out.println("L0 files: " + db.getProperty("rocksdb.num-files-at-level0") + " keys written " + id);
        Thread.sleep(3000); // warmer
        measure(store, space, "L0=" + files);
        call(store, "compactAll", new Class<?>[0]);
        System.out.println("after compacting: L0 " + db.getProperty("rocksdb.num-files-at-level0") + " " + db.getProperty("rocksdb.levelstats").replace('\n', ' '));
        Thread.sleep(3000);
        measure(store, space, "compacted");
        store.close();
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
    static void measure(RocksDbStore store, int space, String label) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Random r = new Random(7);
        for (int round = 0; round < 3; round++) {
            int n = 1_000_000; int found = 0;
            long c0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                if (store.get(("k" + r.nextInt(space)).getBytes()) != null) found++;
            }
            long c1 = mx.getCurrentThreadCpuTime();
            List<byte[]> batch = new ArrayList<>();
            int m = 0;
            for (int i = 0; i < n / 8; i++) {
                batch.clear();
                for (int j = 0; j < 8; j++) batch.add(("k" + r.nextInt(space)).getBytes());
                for (byte[] v : store.getAll(batch)) if (v != null) m++;
            }
            long c2 = mx.getCurrentThreadCpuTime();
            System.out.printf("%s round %d: get %.2f us/key (found %d), getAll(8) %.2f us/key%n", label, round, (c1 - c0) / 1e3 / n, found, (c2 - c1) / 1e3 / n, m);
        }
    }
}
