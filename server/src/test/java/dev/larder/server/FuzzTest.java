package dev.larder.server;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded fuzzer over real TCP: random bytes and mutations of valid requests (bit flips, interesting bytes and
 * tokens, cuts, splices, repeats), delivered whole, in fragments, half-closed or reset. After every batch:
 * {@code /v0/status} answers, a write reads back, no event-loop or worker thread has died, no connection is left
 * open, and no input produced a 500. At the end the leak guard (paranoid) must have nothing to report.
 *
 * <p>{@code -Dlarder.fuzz.inputs=N} (default 3000), {@code -Dlarder.fuzz.seed=S}; input {@code i} depends only on
 * {@code S + i}, so a failure names the input to replay ({@code -Dlarder.fuzz.from=i}).
 */
@ExtendWith(LeakDetection.class)
class FuzzTest {

    private static final int INPUTS = Integer.getInteger("larder.fuzz.inputs", 3000);
    private static final int FROM = Integer.getInteger("larder.fuzz.from", 0);   // replay: start at this input
    private static final long SEED = Long.getLong("larder.fuzz.seed", 0x1a7de7L);
    private static final int BATCH = 250;
    private static final int MAX_INPUT = 64 * 1024;
    private static final int PARALLEL = 4;

    private static final String[] SEEDS = {
        "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n",
        "PUT /v0/entity?id=fz1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
        "GET /v0/entity?id=fz1 HTTP/1.1\r\nHost: x\r\n\r\n",
        "DELETE /v0/entity?id=fz1 HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /v0/entities?start=fz&end=fz~ HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /v0/entities?start=%00 HTTP/1.1\r\nHost: x\r\n\r\n",
        "PUT /v0/entity?id=fz%FF%00 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nT: v\r\n\r\n",
        "PUT /v0/entity?id=fz2 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
        "GET /v0/status HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "PUT /v0/entity?id=fz3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1\r\n\r\nz",
        "POST /v0/entity?id=fz4 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
        "GET /v0/entity?id=fz1 HTTP/1.1\r\nHost: x\r\n\r\nGET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n"
                + "PUT /v0/entity?id=fz5 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok",
    };

    private static final String[] TOKENS = {
        "\r\n", "\r\n\r\n", "\n", "\r", " ", ":", "%", "%%", "%0", "%zz", "?", "&", "=", "id=", "?id=", "\u0000",
        "\u00ff", "Content-Length: 99999\r\n", "Content-Length: -1\r\n", "Content-Length: 3\r\n",
        "Transfer-Encoding: chunked\r\n", "Transfer-Encoding: gzip, chunked\r\n", "Expect: 100-continue\r\n",
        "Connection: close\r\n", "HTTP/1.1", "HTTP/2.0", "HTTP/0.9", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        "ffffffff\r\n", "0\r\n\r\n", "99999999999999999999", "/v0/entities?start=", "/v0/entity?id=",
    };

    private static final byte[] INTERESTING = {0, '\r', '\n', ' ', ':', '%', '?', '&', '=', (byte) 0xff, (byte) 0x80,
        '0', '9', 'F', ';', ',', '\t', '"', '/'};

    @TempDir
    Path dir;

    @Test
    void randomAndMutatedInputsNeverHurtTheServer() throws Exception {
        System.out.printf("fuzz: %d inputs, seed %d (-Dlarder.fuzz.seed=%d)%n", INPUTS, SEED, SEED);
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        ConcurrentHashMap<String, LongAdder> responses = new ConcurrentHashMap<>();
        Set<Thread> before = serverThreads();
        try (TestServer larder = new TestServer(dir, o -> o.ioThreads(2).workers(2).queueSize(16)
                .maxValueSize(4096).maxRequestLine(1024).maxHeaderSize(2048)
                .readTimeout(Duration.ofMillis(500)).idleTimeout(Duration.ofSeconds(2)))) {
            Set<Thread> serverThreads = startAllServerThreads(larder, before);
            ExecutorService clients = Executors.newFixedThreadPool(PARALLEL);
            long started = System.nanoTime();
            try {
                for (int from = FROM; from < FROM + INPUTS; from += BATCH) {
                    List<Future<?>> batch = new ArrayList<>();
                    for (int i = from; i < Math.min(FROM + INPUTS, from + BATCH); i++) {
                        long inputSeed = SEED + i;
                        int index = i;
                        batch.add(clients.submit(() -> deliver(larder, index, inputSeed, failures, responses)));
                    }
                    for (Future<?> f : batch) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                    checkHealth(larder, serverThreads, from + batch.size(), failures);
                    if (!failures.isEmpty()) {
                        fail(failures.size() + " failure(s):\n" + String.join("\n", failures));
                    }
                }
            } finally {
                clients.shutdownNow();
            }
            System.out.printf("fuzz: %d inputs in %.1f s, statuses read %s; server healthy after every batch of %d%n",
                    INPUTS, (System.nanoTime() - started) / 1e9, new TreeMap<>(responses), BATCH);
        }
    }

    private static Set<Thread> serverThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && (t.getName().startsWith("larder-io") || t.getName().startsWith("larder-worker"))) {
                threads.add(t);
            }
        }
        return threads;
    }

    /** Opens enough connections for every event loop and worker to have started, and returns those threads. */
    private static Set<Thread> startAllServerThreads(TestServer larder, Set<Thread> before) throws Exception {
        for (int i = 0; i < 8; i++) {
            try (RawHttp http = larder.connect()) {
                assertEquals(201, http.exchange("PUT", "/v0/entity?id=warm" + i, "v").status());
            }
        }
        Set<Thread> threads = serverThreads();
        threads.removeAll(before);
        assertEquals(4, threads.size(), "2 event loops and 2 workers: " + threads);
        return threads;
    }

    private static void checkHealth(TestServer larder, Set<Thread> serverThreads, int done,
                                    ConcurrentLinkedQueue<String> failures) throws Exception {
        for (Thread t : serverThreads) {
            if (!t.isAlive()) {
                failures.add("after " + done + " inputs: thread " + t.getName() + " died");
            }
        }
        try (RawHttp http = larder.connect()) {
            assertEquals(200, http.exchange("GET", "/v0/status", null).status(), "status after " + done + " inputs");
            assertEquals(201, http.exchange("PUT", "/v0/entity?id=sentinel", "s" + done).status());
            assertEquals("s" + done, http.exchange("GET", "/v0/entity?id=sentinel", null).text());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (larder.server.openConnections() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        if (larder.server.openConnections() > 0) {
            failures.add("after " + done + " inputs: " + larder.server.openConnections() + " connection(s) never closed");
        }
    }

    /** Builds input {@code index} and sends it one of four ways; records what would mean the server misbehaved. */
    private static void deliver(TestServer larder, int index, long seed, ConcurrentLinkedQueue<String> failures,
                                ConcurrentHashMap<String, LongAdder> responses) {
        Random random = new Random(seed);
        byte[] input = input(random);
        int mode = random.nextInt(10);
        try (Socket socket = new Socket()) {
            socket.connect(larder.address(), 5_000);
            socket.setSoTimeout(10_000);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] received;
            if (mode < 4) {
                // Whole, then half-close: the server must finish with the connection and close it.
                write(out, input);
                socket.shutdownOutput();
                received = readToEnd(in, Long.MAX_VALUE);
            } else if (mode < 6) {
                // In fragments of 1..16 bytes with pauses, then half-close.
                for (int at = 0; at < input.length; ) {
                    int n = Math.min(input.length - at, 1 + random.nextInt(16));
                    out.write(input, at, n);
                    out.flush();
                    at += n;
                    if (random.nextInt(4) == 0) {
                        Thread.sleep(1);
                    }
                }
                socket.shutdownOutput();
                received = readToEnd(in, Long.MAX_VALUE);
            } else if (mode < 8) {
                // Whole, read briefly, then reset the connection under whatever the server is doing.
                write(out, input);
                socket.setSoTimeout(50);
                received = readToEnd(in, 50);
                socket.setSoLinger(true, 0);
            } else {
                // Whole, keep the connection open: read until the server closes or goes quiet.
                write(out, input);
                socket.setSoTimeout(150);
                received = readToEnd(in, 150);
            }
            String text = new String(received, ISO_8859_1);
            for (int at = text.indexOf("HTTP/1.1 "); at >= 0; at = text.indexOf("HTTP/1.1 ", at + 1)) {
                if ((at > 0 && text.charAt(at - 1) != '\n') || at + 12 > text.length()
                        || !text.substring(at + 9, at + 12).chars().allMatch(Character::isDigit)) {
                    continue;   // not a status line (a body may echo one)
                }
                responses.computeIfAbsent(text.substring(at + 9, at + 12),
                        k -> new LongAdder()).increment();
                if (text.startsWith("HTTP/1.1 500", at)) {
                    failures.add("input " + index + " (seed " + seed + ") got a 500: "
                            + escape(text.substring(at, Math.min(text.length(), at + 200)).getBytes(ISO_8859_1))
                            + "\n  input: " + escape(input));
                }
            }
        } catch (SocketTimeoutException e) {
            failures.add("input " + index + " (seed " + seed + ", mode " + mode + "): the server neither answered "
                    + "nor closed within 10 s\n  input: " + escape(input) + "\n  server threads now:\n" + serverStacks());
        } catch (IOException e) {
            // A reset or a refused write: the server closed on us, which is an allowed answer to garbage.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What the event loops and workers are doing, for a failure report. */
    private static String serverStacks() {
        StringBuilder sb = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.getName().startsWith("larder-io") || t.getName().startsWith("larder-worker")) {
                sb.append("    ").append(t.getName()).append(' ').append(t.getState()).append('\n');
                for (int i = 0; i < Math.min(12, stack.length); i++) {
                    sb.append("      at ").append(stack[i]).append('\n');
                }
            }
        });
        return sb.toString();
    }

    private static void write(OutputStream out, byte[] input) {
        try {
            out.write(input);
            out.flush();
        } catch (IOException e) {
            // the server already closed: fine, we still read what it said
        }
    }

    /** Reads until EOF, or until {@code quietMillis} pass without data (then returns what came). */
    private static byte[] readToEnd(InputStream in, long quietMillis) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        long deadline = quietMillis == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(quietMillis);
        while (true) {
            int n;
            try {
                n = in.read(buf);
            } catch (SocketTimeoutException e) {
                if (quietMillis != Long.MAX_VALUE) {
                    return all.toByteArray();
                }
                throw e;
            } catch (IOException e) {
                return all.toByteArray();   // reset by the server after its answer
            }
            if (n < 0) {
                return all.toByteArray();
            }
            all.write(buf, 0, n);
            if (System.nanoTime() > deadline) {
                return all.toByteArray();
            }
        }
    }

    static byte[] input(Random random) {
        int kind = random.nextInt(20);
        if (kind == 0) {
            byte[] noise = new byte[random.nextInt(2000)];
            random.nextBytes(noise);
            return noise;
        }
        byte[] data = SEEDS[random.nextInt(SEEDS.length)].getBytes(ISO_8859_1);
        int mutations = 1 + random.nextInt(kind < 10 ? 2 : 6);
        for (int m = 0; m < mutations; m++) {
            data = mutate(random, data);
        }
        // Repeats of repeats can reach megabytes: volume is the slow-client and overload tests' subject, and one
        // connection pipelining tens of thousands of requests keeps its event loop busy for as long as answering
        // them takes (seconds under paranoid leak tracking), which would stall the other inputs on that loop.
        return data.length > MAX_INPUT ? Arrays.copyOf(data, MAX_INPUT) : data;
    }

    private static byte[] mutate(Random random, byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(data.length + 64);
        int at = data.length == 0 ? 0 : random.nextInt(data.length);
        switch (random.nextInt(9)) {
            case 0 -> { // flip bits
                byte[] copy = data.clone();
                for (int i = 0, n = 1 + random.nextInt(4); i < n && copy.length > 0; i++) {
                    copy[random.nextInt(copy.length)] ^= (byte) (1 << random.nextInt(8));
                }
                return copy;
            }
            case 1 -> { // an interesting byte in place
                byte[] copy = data.clone();
                if (copy.length > 0) {
                    copy[at] = INTERESTING[random.nextInt(INTERESTING.length)];
                }
                return copy;
            }
            case 2 -> { // insert a token
                out.write(data, 0, at);
                out.writeBytes(TOKENS[random.nextInt(TOKENS.length)].getBytes(ISO_8859_1));
                out.write(data, at, data.length - at);
            }
            case 3 -> { // delete a range
                int len = random.nextInt(Math.max(1, data.length - at) + 1);
                out.write(data, 0, at);
                out.write(data, Math.min(data.length, at + len), data.length - Math.min(data.length, at + len));
            }
            case 4 -> { // duplicate a range
                int len = Math.min(data.length - at, 1 + random.nextInt(64));
                out.write(data, 0, at + len);
                out.write(data, at, data.length - at);
            }
            case 5 -> out.write(data, 0, at); // truncate
            case 6 -> { // splice with another seed
                byte[] other = SEEDS[random.nextInt(SEEDS.length)].getBytes(ISO_8859_1);
                int cut = random.nextInt(other.length);
                out.write(data, 0, at);
                out.write(other, cut, other.length - cut);
            }
            case 7 -> { // repeat the whole input (pipelining)
                for (int i = 0, n = 2 + random.nextInt(40); i < n; i++) {
                    out.writeBytes(data);
                }
            }
            default -> { // a long run of one byte (long ids, headers, chunk sizes)
                out.write(data, 0, at);
                byte b = INTERESTING[random.nextInt(INTERESTING.length)];
                for (int i = 0, n = random.nextInt(3000); i < n; i++) {
                    out.write(random.nextBoolean() ? b : 'k');
                }
                out.write(data, at, data.length - at);
            }
        }
        return out.toByteArray();
    }

    private static String escape(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(bytes.length, 400); i++) {
            int b = bytes[i] & 0xff;
            if (b == '\r') {
                sb.append("\\r");
            } else if (b == '\n') {
                sb.append("\\n");
            } else if (b < 0x20 || b >= 0x7f) {
                sb.append(String.format("\\x%02x", b));
            } else {
                sb.append((char) b);
            }
        }
        return bytes.length > 400 ? sb + "...(" + bytes.length + " bytes)" : sb.toString();
    }
}
