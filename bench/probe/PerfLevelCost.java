import dev.larder.storage.*;
import java.lang.management.*;
import java.lang.reflect.*;
import java.nio.file.*;
import java.util.*;
import org.rocksdb.*;

// What RocksDB's per-thread perf context costs a lookup and a write (docs/performance.md, "Session 72"): one store
// of KEYS keys (3M by default, compacted, all in a block cache of the server's default size on this machine), then
// rounds that alternate this thread's perf level (RocksDB's SetPerfLevel, thread-local, takes effect at once)
// between blocks of getFromMemory lookups (the event loops' GET path) and blocks of puts, timed by this thread's CPU
// time. Interleaving A and B in one process on one warm store is what makes a 1-2% difference visible on a noisy
// machine.
//   taskset -c 1 java -cp cli/target/larder.jar bench/probe/PerfLevelCost.java [LEVEL_A LEVEL_B]
//   (-Dkeys=N -Drounds=N -Dgets=N -Dputs=N per block; -Dputs=0: lookups alone, on a store that does not change)
public class PerfLevelCost {
    static Object call(Object o, String m) throws Exception {
        Method x = o.getClass().getDeclaredMethod(m); x.setAccessible(true); return x.invoke(o);
    }
    public static void main(String[] args) throws Exception {
        PerfLevel a = PerfLevel.valueOf(args.length > 0 ? args[0] : "ENABLE_COUNT");
        PerfLevel b = PerfLevel.valueOf(args.length > 1 ? args[1] : "DISABLE");
        int keys = Integer.getInteger("keys", 3_000_000), rounds = Integer.getInteger("rounds", 12);
        Path dir = Files.createTempDirectory("perf-level-cost");
        long blockCache = Long.getLong("bc", 6026L) << 20;
        RocksDbStore store = RocksDbStore.open(new StoreOptions(dir, blockCache, 0, false, true, true));
        Field f = RocksDbStore.class.getDeclaredField("db"); f.setAccessible(true);
        RocksDB db = (RocksDB) f.get(store);
        byte[] value = new byte[64];
        Arrays.fill(value, (byte) 'v');
        for (int i = 0; i < keys; i++) store.put(key(i), value);
        call(store, "flushMemtables");
        call(store, "compactAll");
        for (int i = 0; i < keys; i++) store.get(key(i)); // every block into the cache
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Random r = new Random(7);
        int n = Integer.getInteger("gets", 400_000), w = Integer.getInteger("puts", 100_000);
        List<Double> getRatio = new ArrayList<>(), putRatio = new ArrayList<>();
        for (int round = -1; round < rounds; round++) {
            double[] get = new double[2], put = new double[2];
            for (int k = 0; k < 2; k++) {
                int which = Math.floorMod(round + k, 2); // alternate which goes first
                db.setPerfLevel(which == 0 ? a : b);
                long c0 = mx.getCurrentThreadCpuTime();
                int found = 0;
                for (int i = 0; i < n; i++) {
                    if (store.getFromMemory(key(r.nextInt(keys))) != MemoryLookup.UNKNOWN) found++;
                }
                long c1 = mx.getCurrentThreadCpuTime();
                for (int i = 0; i < w; i++) store.put(key(r.nextInt(keys)), value);
                long c2 = mx.getCurrentThreadCpuTime();
                get[which] = (c1 - c0) / 1e3 / n;
                put[which] = (c2 - c1) / 1e3 / w;
                if (found < n * 9 / 10) System.out.println("  only " + found + " of " + n + " answered from memory");
            }
            if (round < 0) continue; // JIT warm-up
            getRatio.add(get[1] / get[0]);
            if (w > 0) putRatio.add(put[1] / put[0]);
            // With -Dputs=0 there is no put block to report.
            String puts = w > 0
                    ? String.format("; put %.3f vs %.3f us (B/A %.3f)", put[0], put[1], put[1] / put[0]) : "";
            System.out.printf("round %2d: get %s %.3f us, %s %.3f us (B/A %.3f)%s%n",
                    round, a, get[0], b, get[1], get[1] / get[0], puts);
        }
        String puts = w > 0 ? String.format(", put %.3f", median(putRatio)) : "";
        System.out.printf("median B/A: get %.3f%s (B=%s, A=%s)%n", median(getRatio), puts, b, a);
        store.close();
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
    static byte[] key(int i) { return ("key-" + i).getBytes(); }
    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs); Collections.sort(s);
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }
}
