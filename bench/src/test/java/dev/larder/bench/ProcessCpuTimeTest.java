package dev.larder.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ProcessCpuTimeTest {

    /**
     * How much CPU (in ticks, 0.4 s at 100 Hz) the reniced spinner must have had before it is compared: with the
     * comparison's quarter of slack the background read is still at least the 0.3 s the test asked for before.
     */
    private static final long SPINNER_TICKS = 40;

    @Test
    void coresAreTheCpuTimeOverTheTimeBetweenTwoReadings() {
        long s = TimeUnit.SECONDS.toNanos(1);
        ProcessCpuTime.Sample a = new ProcessCpuTime.Sample(10 * s, 4.0e9, 1.0e9);
        ProcessCpuTime.Sample b = new ProcessCpuTime.Sample(12 * s, 5.5e9, 1.6e9);
        assertEquals(0.75, ProcessCpuTime.cores(a, b), 1e-9);
        assertEquals(0.30, ProcessCpuTime.backgroundCores(a, b), 1e-9);
        assertTrue(Double.isNaN(ProcessCpuTime.cores(a, a)), "no time between them");
        assertTrue(Double.isNaN(ProcessCpuTime.cores(null, b)));
        assertTrue(Double.isNaN(ProcessCpuTime.backgroundCores(null, b)));
        assertTrue(Double.isNaN(ProcessCpuTime.cores(b, new ProcessCpuTime.Sample(13 * s, 1.0e9, 2.0e9))),
                "a guard: CPU time never goes back, so such a pair gives no figure rather than a negative one");
        assertTrue(Double.isNaN(ProcessCpuTime.backgroundCores(b, new ProcessCpuTime.Sample(13 * s, 6.0e9, 1.0e9))),
                "a guard, as for the whole: the sum never goes back, so such a pair gives no figure");
        assertTrue(Double.isNaN(ProcessCpuTime.backgroundCores(a, new ProcessCpuTime.Sample(12 * s, 5.5e9,
                Double.NaN))), "not read by thread");
    }

    @Test
    void aWindowGetsTheReadingsInsideItAndNoneFromItsNeighbours() throws Exception {
        // A server whose CPU time grows at half a core until 1.5 s in and at a full core after that.
        long t0 = System.nanoTime();
        long switchAt = t0 + TimeUnit.MILLISECONDS.toNanos(1500);
        try (ProcessCpuTime cpu = ProcessCpuTime.start(() -> {
            long now = System.nanoTime();
            double before = 0.5 * (Math.min(now, switchAt) - t0);
            return Optional.of(new ProcessCpuTime.Reading(before + Math.max(0, now - switchAt), Double.NaN));
        }, 2)) {
            assertEquals(2, cpu.allowedCpus());
            TimeUnit.MILLISECONDS.sleep(4600);
            long end = System.nanoTime();
            assertTrue(cpu.sampleCount() >= 10, "five readings a second and one at the start: " + cpu.sampleCount());
            assertEquals(1.0, cpu.readings().cores(switchAt, end), 0.05, "only readings after the switch");
            assertEquals(0.5, cpu.readings().cores(t0, switchAt), 0.05, "only readings before it");
            assertTrue(Double.isNaN(cpu.readings().cores(t0 + 1, t0 + TimeUnit.MILLISECONDS.toNanos(100))),
                    "a window with fewer than two readings inside has no figure");
            double all = cpu.readings().cores(t0, end);
            assertTrue(all > 0.5 && all < 1.0, "the whole span mixes both: " + all);
        }
    }

    @Test
    void aSpanTakesTheReadingsOnItsBoundsAndNoneOutside() {
        // Readings at 0, 1, ..., 9 s, the server at 0.5 core through 5 s and at a full core after.
        long s = TimeUnit.SECONDS.toNanos(1);
        List<ProcessCpuTime.Sample> samples = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            double cpu = i <= 5 ? 0.5 * i * s : 2.5 * s + (i - 5) * s;
            samples.add(new ProcessCpuTime.Sample(i * s, cpu, 0.1 * i * s));
        }
        ProcessCpuTime.Readings readings = new ProcessCpuTime.Readings(samples);
        assertEquals(0.5, readings.cores(0, 5 * s), 1e-9, "both bounds are readings, and both count");
        assertEquals(1.0, readings.cores(5 * s, 9 * s), 1e-9);
        assertEquals(1.0, readings.cores(5 * s - 1, 7 * s + 1), 1e-9, "from 5 s to 7 s: 4 s and 8 s are outside");
        assertEquals(0.1, readings.backgroundCores(2 * s, 8 * s), 1e-9);
        assertTrue(Double.isNaN(readings.cores(3 * s + 1, 4 * s)), "one reading inside has no figure");
        assertTrue(Double.isNaN(readings.cores(9 * s + 1, 20 * s)), "after the last reading");
        assertTrue(Double.isNaN(new ProcessCpuTime.Readings(List.of()).cores(0, s)));
        for (long from = -s; from < 10 * s; from += s / 2) {
            PeriodicSampler.Span<ProcessCpuTime.Sample> span =
                    PeriodicSampler.within(samples, ProcessCpuTime.Sample::nanos, from, from + 2 * s);
            for (ProcessCpuTime.Sample sample : samples) {
                boolean inside = sample.nanos() >= from && sample.nanos() <= from + 2 * s;
                assertTrue(!inside
                                || (span.first().nanos() <= sample.nanos() && span.last().nanos() >= sample.nanos()),
                        "span from " + from + " covers every reading inside it");
            }
            assertTrue(span.first() == null || span.first().nanos() >= from, "and none before it");
            assertTrue(span.last() == null || span.last().nanos() <= from + 2 * s, "and none after it");
        }
    }

    @Test
    void aServerWhoseCpuCannotBeReadIsNotSampled() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        try (ProcessCpuTime cpu = ProcessCpuTime.start(() -> {
            asked.incrementAndGet();
            return Optional.empty();
        }, 0)) {
            TimeUnit.MILLISECONDS.sleep(3 * ProcessCpuTime.PERIOD_MILLIS);
            assertEquals(1, asked.get(), "asked once, then left alone");
            assertEquals(0, cpu.sampleCount());
            assertTrue(Double.isNaN(cpu.readings().cores(0, System.nanoTime())));
        }
    }

    @Test
    void theServersProcessesAreTheOnesListeningOnItsPort() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs Linux's /proc");
        try (ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            URI url = URI.create("http://127.0.0.1:" + listening.getLocalPort() + "/v0/entity");
            assertEquals(List.of(ProcessHandle.current().pid()), ListeningProcesses.serving(url));
            List<Long> pids = ListeningProcesses.serving(url);
            try (ProcessCpuTime cpu = ProcessCpuTime.start(pids, ListeningProcesses.allowedCpuSet(pids))) {
                // The JVM's affinity is what taskset gave it, at least one CPU and at most the machine's.
                assertTrue(cpu.allowedCpus() >= 1 && cpu.allowedCpus() <= Runtime.getRuntime().availableProcessors()
                        + 64, "allowed: " + cpu.allowedCpus());
                long from = System.nanoTime();
                double spun = spin(TimeUnit.MILLISECONDS.toNanos(3500));
                long to = System.nanoTime();
                assertTrue(cpu.sampleCount() >= 10, "readings: " + cpu.sampleCount());
                double cores = cpu.readings().cores(from, to);
                assertTrue(cores >= 0.8 * spun / (to - from)
                                && cores <= Runtime.getRuntime().availableProcessors() + 0.1,
                        "this JVM spun " + spun / 1e9 + " s of CPU in " + (to - from) / 1e9 + " s: " + cores);
            }
        }
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        assertEquals(List.of(), ListeningProcesses.serving(URI.create("http://127.0.0.1:" + closed)));
        // Another machine's server (TEST-NET-1 is never this one): nothing to read, nothing sampled.
        assertFalse(ListeningProcesses.isThisMachine("192.0.2.1"));
        assertTrue(ListeningProcesses.isThisMachine("127.0.0.1") && ListeningProcesses.isThisMachine("localhost"));
        assertEquals(List.of(), ListeningProcesses.serving(URI.create("http://192.0.2.1:" + closed)));
    }

    @Test
    void theGeneratorsOwnCpuIsThisJvmsOnTheCpusItMayRunOn() {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs Linux's /proc");
        try (ProcessCpuTime own = ProcessCpuTime.ofThisProcess()) {
            assertEquals(Runtime.getRuntime().availableProcessors(), own.allowedCpus());
            long from = System.nanoTime();
            double spun = spin(TimeUnit.MILLISECONDS.toNanos(1500));
            long to = System.nanoTime();
            double cores = own.readings().cores(from, to);
            assertTrue(cores >= 0.8 * spun / (to - from) && cores <= Runtime.getRuntime().availableProcessors() + 0.1,
                    "this JVM spun " + spun / 1e9 + " s of CPU in " + (to - from) / 1e9 + " s: " + cores);
        }
    }

    @Test
    void listeningSocketsAreReadFromTheKernelsTable() {
        String table = """
                  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
                   0: 0100007F:4A31 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0
                   1: 0100007F:4A31 0100007F:8A7C 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0
                   2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 77 1 0
                   3: 0100007F:4A31 0100007F:9000 06 00000000:00000000 03:00000D23 00000000     0        0 0 3 0
                """;
        assertEquals(java.util.Set.of("socket:[4242]"), ListeningProcesses.listeningInodes(table, 0x4A31),
                "the listener, not its connections (01) or a closing one (06)");
        assertEquals(java.util.Set.of("socket:[77]"), ListeningProcesses.listeningInodes(table, 8080));
        assertEquals(java.util.Set.of(), ListeningProcesses.listeningInodes(table, 9));
    }

    @Test
    void theListenersPidsAndCpuTimeComeFromProc(@org.junit.jupiter.api.io.TempDir Path proc) throws Exception {
        // An nginx on [::]:8080 (IPv6 table): master 10 and worker 11 hold the listening socket, 12 a connection.
        Files.createDirectories(proc.resolve("net"));
        Files.writeString(proc.resolve("net/tcp"), "  sl  local_address rem_address   st\n");
        Files.writeString(proc.resolve("net/tcp6"), """
                  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
                   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5151 1 0
                   1: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000100007F:D2C4 01 00000000:00000000 00:00000000 00000000     0        0 5252 1 0
                """);
        for (String[] fd : new String[][] {{"10", "6", "socket:[5151]"}, {"11", "6", "socket:[5151]"},
                {"11", "7", "socket:[5252]"}, {"12", "3", "socket:[5252]"}, {"12", "4", "pipe:[9]"}}) {
            Files.createDirectories(proc.resolve(fd[0] + "/fd"));
            Files.createSymbolicLink(proc.resolve(fd[0] + "/fd/" + fd[1]), Path.of(fd[2]));
        }
        assertEquals(List.of(10L, 11L), ListeningProcesses.listeningOn(8080, proc));
        assertEquals(List.of(), ListeningProcesses.listeningOn(80, proc));
        // utime 300 + stime 200 ticks and 7 + 3; the start times must still match for a reading.
        Files.writeString(proc.resolve("10/stat"),
                "10 (nginx: master) S 1 10 10 0 -1 4194560 1 0 0 0 300 200 0 0 20 0 1 0 4242 0 0\n");
        // A command name may hold spaces and parens: the fields are counted after the last ')'.
        Files.writeString(proc.resolve("11/stat"),
                "11 (nginx) worker) R 10 10 10 0 -1 4194560 1 0 0 0 7 3 0 0 20 0 1 0 4343 0 0\n");
        ProcessCpuTime.Reading both = ProcessCpuTime.read(proc, Map.of(10L, "4242", 11L, "4343"), null).orElseThrow();
        assertEquals(5.1e9, both.cpuNanos(), 1, "510 ticks of 10 ms");
        assertTrue(Double.isNaN(both.backgroundCpuNanos()), "threads not read");
        assertTrue(ProcessCpuTime.read(proc, Map.of(10L, "4242", 11L, "9999"), null).isEmpty(),
                "pid 11 now names another process");
        assertTrue(ProcessCpuTime.read(proc, Map.of(10L, "4242", 13L, "1"), null).isEmpty(), "13 exited");
        assertEquals(0.0, ProcessCpuTime.read(proc, Map.of(10L, "4242"),
                Map.of(10L, new LowerPriorityThreads(proc.resolve("10/task")))).orElseThrow().backgroundCpuNanos(),
                "no task directory: no lower-priority threads");
    }

    @Test
    void theThreadsAtALowerPriorityThanTheirProcessAreItsBackground(@org.junit.jupiter.api.io.TempDir Path proc)
            throws Exception {
        // A JVM at nice 0 (field 19): its event loop at nice 0, a RocksDB compaction thread at 19, a thread at -5.
        String fields = " S 1 20 20 0 -1 4194560 1 0 0 0 %d %d 0 0 20 %d 40 0 777 0 0\n";
        Files.createDirectories(proc.resolve("20/task"));
        Files.writeString(proc.resolve("20/stat"), "20 (java)" + String.format(fields, 900, 100, 0));
        String[][] threads = {{"20", "java", "10", "5", "0"}, {"21", "larder-io-1", "500", "200", "0"},
                {"22", "rocksdb:low", "150", "50", "19"}, {"23", "urgent (x)", "30", "0", "-5"}};
        for (String[] t : threads) {
            Files.createDirectories(proc.resolve("20/task/" + t[0]));
            Files.writeString(proc.resolve("20/task/" + t[0] + "/stat"), t[0] + " (" + t[1] + ")"
                    + String.format(fields, Long.parseLong(t[2]), Long.parseLong(t[3]), Integer.parseInt(t[4])));
        }
        Map<Long, LowerPriorityThreads> background = Map.of(20L, new LowerPriorityThreads(proc.resolve("20/task")));
        ProcessCpuTime.Reading r = ProcessCpuTime.read(proc, Map.of(20L, "777"), background).orElseThrow();
        assertEquals(1.0e10, r.cpuNanos(), 1, "the process's own sum, exited threads included");
        assertEquals(2.0e9, r.backgroundCpuNanos(), 1, "rocksdb:low's 200 ticks, nothing else");

        // rocksdb:low works 50 more ticks and a second one (24) starts and uses 30: +80.
        Files.writeString(proc.resolve("20/task/22/stat"), "22 (rocksdb:low)" + String.format(fields, 200, 50, 19));
        Files.createDirectories(proc.resolve("20/task/24"));
        Files.writeString(proc.resolve("20/task/24/stat"), "24 (rocksdb:low)" + String.format(fields, 20, 10, 19));
        assertEquals(2.8e9, ProcessCpuTime.read(proc, Map.of(20L, "777"), background).orElseThrow()
                .backgroundCpuNanos(), 1);
        // 22 exits (its 250 ticks stay counted), 24 uses 5 more: the sum only grows.
        Files.delete(proc.resolve("20/task/22/stat"));
        Files.delete(proc.resolve("20/task/22"));
        Files.writeString(proc.resolve("20/task/24/stat"), "24 (rocksdb:low)" + String.format(fields, 25, 10, 19));
        assertEquals(2.85e9, ProcessCpuTime.read(proc, Map.of(20L, "777"), background).orElseThrow()
                .backgroundCpuNanos(), 1, "an exited thread's time stays in the sum");
        // A new thread reuses tid 24 (another start time): all of its 3 ticks are new.
        Files.writeString(proc.resolve("20/task/24/stat"), "24 (rocksdb:low)"
                + String.format(fields, 2, 1, 19).replace(" 777 ", " 900 "));
        assertEquals(2.88e9, ProcessCpuTime.read(proc, Map.of(20L, "777"), background).orElseThrow()
                .backgroundCpuNanos(), 1, "a reused tid is another thread");
    }

    @Test
    void theBackgroundIsAlsoReadByThreadName(@org.junit.jupiter.api.io.TempDir Path proc) throws Exception {
        String fields = " S 1 30 30 0 -1 4194560 1 0 0 0 %d %d 0 0 20 %d 40 0 %s 0 0\n";
        Files.createDirectories(proc.resolve("30/task"));
        Files.writeString(proc.resolve("30/stat"), "30 (java)" + String.format(fields, 900, 100, 0, "555"));
        // Two compaction threads share a name, one flush thread, the event loop at the process's priority.
        String[][] threads = {{"31", "larder-io-1", "500", "0"}, {"32", "rocksdb:low", "100", "19"},
                {"33", "rocksdb:low", "60", "19"}, {"34", "rocksdb:high", "20", "19"}};
        for (String[] t : threads) {
            Files.createDirectories(proc.resolve("30/task/" + t[0]));
            Files.writeString(proc.resolve("30/task/" + t[0] + "/stat"), t[0] + " (" + t[1] + ")"
                    + String.format(fields, Long.parseLong(t[2]), 0, Integer.parseInt(t[3]), "600"));
        }
        Map<Long, LowerPriorityThreads> background = Map.of(30L, new LowerPriorityThreads(proc.resolve("30/task")));
        ProcessCpuTime.Reading first = ProcessCpuTime.read(proc, Map.of(30L, "555"), background).orElseThrow();
        assertEquals(Map.of("rocksdb:low", 1.6e9, "rocksdb:high", 0.2e9), first.backgroundByThread(),
                "one pool's threads summed under their name; the event loop is not background");
        assertEquals(1.8e9, first.backgroundCpuNanos(), 1);
        // Over the next 2 s: the compactions use 30 + 10 ticks, the flush none, a warmer starts and uses 4.
        Files.writeString(proc.resolve("30/task/32/stat"), "32 (rocksdb:low)" + String.format(fields, 130, 0, 19,
                "600"));
        Files.writeString(proc.resolve("30/task/33/stat"), "33 (rocksdb:low)" + String.format(fields, 70, 0, 19,
                "600"));
        Files.createDirectories(proc.resolve("30/task/35"));
        Files.writeString(proc.resolve("30/task/35/stat"), "35 (larder-warmer)" + String.format(fields, 4, 0, 19,
                "700"));
        ProcessCpuTime.Reading second = ProcessCpuTime.read(proc, Map.of(30L, "555"), background).orElseThrow();
        long s = TimeUnit.SECONDS.toNanos(1);
        ProcessCpuTime.Sample a = new ProcessCpuTime.Sample(10 * s, 10e9, first.backgroundCpuNanos(),
                first.backgroundByThread());
        ProcessCpuTime.Sample b = new ProcessCpuTime.Sample(12 * s, 12e9, second.backgroundCpuNanos(),
                second.backgroundByThread());
        Map<String, Double> busy = new ProcessCpuTime.Readings(List.of(a, b)).backgroundThreads(10 * s, 12 * s);
        assertEquals(List.of("rocksdb:low", "larder-warmer"), List.copyOf(busy.keySet()),
                "the busiest first, and the idle flush thread left out: " + busy);
        assertEquals(0.2, busy.get("rocksdb:low"), 1e-9, "40 ticks in 2 s");
        assertEquals(0.02, busy.get("larder-warmer"), 1e-9, "a thread started in the span counts from its start");
        assertEquals(0.22, ProcessCpuTime.backgroundCores(a, b), 1e-9, "the names add up to the background");
        assertEquals(Map.of(), new ProcessCpuTime.Readings(List.of(a)).backgroundThreads(10 * s, 12 * s),
                "one reading: unknown");
    }

    @Test
    void aThisJvmThreadRenicedIsReadAsBackground() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
        AtomicBoolean stop = new AtomicBoolean();
        Thread spinner = new Thread(() -> {
            double sink = 0;
            while (!stop.get()) {
                sink += Math.sqrt(sink + 1);
            }
        }, "bg-spinner-test");
        spinner.start();
        try {
            long tid = -1;
            for (int i = 0; i < 50 && tid < 0; i++) {
                TimeUnit.MILLISECONDS.sleep(20);
                tid = threadId("bg-spinner-test");
            }
            assertTrue(tid > 0, "the JVM names its native threads");
            long pid = ProcessHandle.current().pid();
            Map<Long, String> self = Map.of(pid, ProcessCpuTime.ProcStat.read(Path.of("/proc/" + pid + "/stat"))
                    .orElseThrow().startTime());
            Map<Long, LowerPriorityThreads> background = Map.of(pid, new LowerPriorityThreads(Path.of("/proc/" + pid
                    + "/task")));
            ProcessCpuTime.Reading before = ProcessCpuTime.read(Path.of("/proc"), self, background).orElseThrow();
            Process renice = new ProcessBuilder("renice", "-n", "10", "-p", Long.toString(tid))
                    .redirectErrorStream(true).start();
            assertEquals(0, renice.waitFor(), new String(renice.getInputStream().readAllBytes()));
            Path spinnerStat = Path.of("/proc/self/task/" + tid + "/stat");
            long spinnerFrom = ProcessCpuTime.ProcStat.read(spinnerStat).orElseThrow().cpuTicks();
            ProcessCpuTime.Reading reniced = ProcessCpuTime.read(Path.of("/proc"), self, background).orElseThrow();
            // At nice 10 beside other busy processes (another module's build) the spinner gets a tenth of a core or
            // less: wait for its CPU time, not for the clock, so the comparison below has ticks to compare.
            long spinnerTo = spinnerFrom;
            for (long end = System.nanoTime() + 30_000_000_000L;
                    spinnerTo - spinnerFrom < SPINNER_TICKS && System.nanoTime() < end; ) {
                TimeUnit.MILLISECONDS.sleep(100);
                spinnerTo = ProcessCpuTime.ProcStat.read(spinnerStat).orElseThrow().cpuTicks();
            }
            ProcessCpuTime.Reading after = ProcessCpuTime.read(Path.of("/proc"), self, background).orElseThrow();
            assertTrue(spinnerTo - spinnerFrom >= SPINNER_TICKS, "the spinner ran " + (spinnerTo - spinnerFrom)
                    + " ticks in 30 s");
            assertTrue(reniced.backgroundCpuNanos() > before.backgroundCpuNanos(),
                    "its whole time counts once it is reniced: " + before + " " + reniced);
            double spun = after.backgroundCpuNanos() - reniced.backgroundCpuNanos();
            double spinnerNanos = ProcessCpuTime.ticksToNanos(spinnerTo - spinnerFrom);
            // The spinner's own ticks over (about) the same span, give or take what it spun between the readings.
            assertEquals(spinnerNanos, spun, 0.25 * spinnerNanos,
                    "the reniced spinner's CPU is read as background: " + spun + " ns against its own "
                            + spinnerNanos);
            assertTrue(spun <= after.cpuNanos() - reniced.cpuNanos() + 1e7,
                    "the background is part of the process's CPU: " + spun);
        } finally {
            stop.set(true);
            spinner.join();
        }
    }

    private static long threadId(String name) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(t.resolve("comm")).strip().equals(name.substring(0, 15))) {
                        return Long.parseLong(t.getFileName().toString());
                    }
                } catch (IOException e) {
                    // The thread exited meanwhile.
                }
            }
        }
        return -1;
    }

    @Test
    void theCpusAServerMayRunOnAreItsProcessesAffinity(@org.junit.jupiter.api.io.TempDir Path proc)
            throws Exception {
        assertEquals(java.util.BitSet.valueOf(new long[] {0b1_0000_1111L}), ListeningProcesses.cpuList("0-3,8"));
        Files.createDirectories(proc.resolve("10"));
        Files.createDirectories(proc.resolve("11"));
        Files.writeString(proc.resolve("10/status"), "Name:\tnginx\nCpus_allowed:\t2\nCpus_allowed_list:\t1\n");
        Files.writeString(proc.resolve("11/status"), "Name:\tnginx\nCpus_allowed_list:\t1-2\n");
        assertEquals(1, ListeningProcesses.allowedCpuSet(List.of(10L), proc).cardinality(), "taskset -c 1");
        assertEquals(2, ListeningProcesses.allowedCpuSet(List.of(10L, 11L), proc).cardinality(),
                "a master and a worker together");
        assertEquals(0, ListeningProcesses.allowedCpuSet(List.of(10L, 12L), proc).cardinality(),
                "one of them gone: unknown");
        assertEquals(ListeningProcesses.cpuList("1-2"), ListeningProcesses.allowedCpuSet(List.of(10L, 11L), proc),
                "which CPUs: for the host's steal on them");
    }

    /**
     * Spins this thread for {@code wallNanos} and at least a second of its own CPU (at most 30 s of the clock): the
     * CPU it got, which on a busy machine is less than the clock's time, so the reading is checked against it.
     */
    private static double spin(long wallNanos) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime();
        long cpuFrom = threads.getCurrentThreadCpuTime();
        double sink = 0;
        while (System.nanoTime() - start < wallNanos
                || threads.getCurrentThreadCpuTime() - cpuFrom < 1_000_000_000L
                        && System.nanoTime() - start < 30_000_000_000L) {
            for (int i = 0; i < 1_000; i++) {
                sink += Math.sqrt(sink + 1);
            }
        }
        assertTrue(sink > 0);
        return threads.getCurrentThreadCpuTime() - cpuFrom;
    }
}
