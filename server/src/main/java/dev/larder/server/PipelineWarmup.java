package dev.larder.server;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Sends every kind of request the data listener answers (PUT, GET hit and miss, range, DELETE, status, and the 400,
 * 404 and 405 errors) through a real connection, many times over, so that C2 has compiled each path before the
 * first user request arrives. Without it the first phase of each kind of request paid for its own compilation: the
 * compiler threads took 20-37% of the server's core for 2-3 s right after each workload switch, on the core the
 * event loop needed (docs/performance.md).
 *
 * <p>Requests are pipelined in rounds on one keep-alive connection and every answer's status is checked, so a
 * warm-up also proves that each path answers as it should. Between rounds, a few connections with one request in
 * flight each send a mix of PUTs and GETs, some written in fragments: that is how real clients arrive (one request
 * per read, kinds mixed in a worker's batch, a request now and then split across reads), and a path the profile
 * never saw is one C2 compiles away and later deoptimises, in the middle of a benchmark's workload switch
 * (docs/performance.md, session 8). The header blocks vary the way real clients' do, one of those connections is
 * replaced by a new one every round (session 16), and when given an admin listener it is warmed between the rounds
 * too (session 12).
 */
public final class PipelineWarmup {

    private static final int ROUNDS_PER_WRITE = 16;
    private static final int SHAPED_CONNECTIONS = 8;
    /** Long enough for the server to read one fragment before the next arrives. */
    private static final long FRAGMENT_PAUSE_NANOS = 200_000;
    private static final String VALUE = "v".repeat(64);
    /**
     * Header blocks as real clients write them, taken by turns: larder bench and wrk ({@code Host} and
     * {@code Content-Length} capitalised), curl (with {@code User-Agent} and {@code Accept}), a browser-like client
     * that says {@code Connection: keep-alive}, and all lower case. The decoder's header parsing and lookups
     * (case-insensitive compares, name hashing, the keep-alive check) branch on these; a warm-up that only ever sent
     * one spelling had its compiled decoder thrown away by the first real client's requests (docs/performance.md,
     * session 12).
     */
    private static final String[][] HEADER_SHAPES = {
        {"Host: 127.0.0.1:8080\r\n", "Content-Length: "},
        {"host: warmup\r\n", "content-length: "},
        {"Host: localhost:8080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n", "Content-Length: "},
        {"Host: larder.example\r\nConnection: keep-alive\r\nAccept-Encoding: gzip, deflate\r\n"
                + "Content-Type: application/octet-stream\r\n", "Content-Length: "},
    };

    /** A scraper's header blocks: curl's, and Prometheus's, which asks for OpenMetrics first. */
    private static final String[][] ADMIN_HEADER_SHAPES = {
        HEADER_SHAPES[2],
        {"Host: 127.0.0.1:9090\r\nUser-Agent: Prometheus/3.5.0\r\nAccept: application/openmetrics-text;version=1.0.0;"
                + "q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n"
                + "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n", "Content-Length: "},
    };

    /** One request of a round and the status it must get. */
    private record Step(String request, int status) {
    }

    /** A connection with its buffered streams (a response is read byte by byte). */
    private record Connection(Socket socket, OutputStream out, InputStream in) implements AutoCloseable {

        static Connection open(InetSocketAddress address) throws IOException {
            Socket socket = new Socket();
            try {
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(30_000);
                socket.connect(address, 10_000);
                return new Connection(socket, new BufferedOutputStream(socket.getOutputStream(), 64 * 1024),
                        new BufferedInputStream(socket.getInputStream(), 64 * 1024));
            } catch (IOException e) {
                socket.close();
                throw e;
            }
        }

        void send(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private final InetSocketAddress address;
    private final InetSocketAddress admin;
    private final List<String> adminPaths;

    /** A warm-up of the data listener at {@code address} alone. */
    public PipelineWarmup(InetSocketAddress address) {
        this(address, null, List.of());
    }

    /**
     * A warm-up of the data listener at {@code address} and, between its rounds, of an admin listener at
     * {@code admin}: a GET of each of {@code adminPaths} by turns, each of which must answer 200. The two listeners
     * share Netty's classes, so each one's first requests would otherwise deoptimise what the other compiled.
     */
    public PipelineWarmup(InetSocketAddress address, InetSocketAddress admin, List<String> adminPaths) {
        this.address = address;
        this.admin = admin;
        this.adminPaths = admin == null ? List.of() : List.copyOf(adminPaths);
    }

    /**
     * Sends at least {@code requests} requests and reads every answer.
     *
     * @return the number of requests sent
     * @throws IOException           when the connection fails
     * @throws IllegalStateException when an answer has an unexpected status
     */
    public long run(long requests) throws IOException {
        long sent = 0;
        List<Connection> shaped = new ArrayList<>();
        Connection adminConnection = null;
        try (Connection pipelined = Connection.open(address)) {
            if (!adminPaths.isEmpty()) {
                adminConnection = Connection.open(admin);
            }
            for (int i = 0; i < SHAPED_CONNECTIONS; i++) {
                shaped.add(Connection.open(address));
            }
            List<Step> batch = new ArrayList<>();
            int round = 0;
            int shapedRound = 0;
            while (sent < requests) {
                batch.clear();
                for (int i = 0; i < ROUNDS_PER_WRITE; i++, round++) {
                    batch.addAll(steps(round));
                }
                for (Step step : batch) {
                    pipelined.out().write(step.request().getBytes(StandardCharsets.US_ASCII));
                }
                pipelined.out().flush();
                for (Step step : batch) {
                    expect(step, readResponse(pipelined.in()));
                    sent++;
                }
                sent += shapedRound(shaped, shapedRound);
                // Clients come and go: one shaped connection closes and a new one opens each round, so the event
                // loop's completion handling is compiled with accepts and closes among its reads and writes. Without
                // it, the 64 connections a benchmark opens deoptimised that code the moment they arrived
                // (docs/performance.md, session 16).
                int retired = shapedRound % shaped.size();
                shaped.get(retired).close();
                shaped.set(retired, Connection.open(address));
                if (adminConnection != null) {
                    ask(adminConnection, new Step(get(adminPaths.get(shapedRound % adminPaths.size()),
                            HEADER_SHAPES[shapedRound % HEADER_SHAPES.length]), 200));
                    sent++;
                }
                shapedRound++;
            }
            for (int i = 0; i < shaped.size(); i++) {
                ask(shaped.get(i), new Step(delete(shapedId(i), HEADER_SHAPES[i % HEADER_SHAPES.length]), 202));
                sent++;
            }
        } finally {
            for (Connection c : shaped) {
                c.close();
            }
            if (adminConnection != null) {
                adminConnection.close();
            }
        }
        return sent;
    }

    /**
     * Sends {@code rounds} rounds of like calls on {@code connections} connections, each round written to every
     * connection before any answer is read: a round of PUTs, one on each connection, then three rounds of GETs (in some
     * of them one of a key never written, answered 404), and so on, and a DELETE on each at the end. Arriving together
     * on one core, a round reaches a worker as one run of up to 16 calls, looked up with one MultiGet or written as one
     * batch, which is what a load's busy seconds look like to the worker's path; the request rounds of {@link #run}
     * have one call in flight on most connections.
     *
     * @return the number of requests sent
     * @throws IOException           when a connection fails
     * @throws IllegalStateException when an answer has an unexpected status
     */
    public long runInStep(int connections, int rounds) throws IOException {
        List<Connection> open = new ArrayList<>();
        long sent = 0;
        try {
            for (int i = 0; i < connections; i++) {
                open.add(Connection.open(address));
            }
            List<Step> steps = new ArrayList<>(connections);
            for (int round = 0; round <= rounds; round++) {
                steps.clear();
                String[] headers = HEADER_SHAPES[round % HEADER_SHAPES.length];
                for (int i = 0; i < connections; i++) {
                    String id = "%00larder-warmup-step-" + i;
                    boolean missing = (round & 4) != 0 && i == connections - 1;
                    if (round == rounds) {
                        steps.add(new Step(delete(id, headers), 202));
                    } else if ((round & 3) == 0) {
                        steps.add(new Step(put(id, headers), 201));
                    } else {
                        steps.add(new Step(get("/v0/entity?id=" + (missing ? id + "-never" : id), headers),
                                missing ? 404 : 200));
                    }
                }
                for (int i = 0; i < connections; i++) {
                    open.get(i).send(steps.get(i).request().getBytes(StandardCharsets.US_ASCII));
                }
                for (int i = 0; i < connections; i++) {
                    expect(steps.get(i), readResponse(open.get(i).in()));
                    sent++;
                }
            }
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
        return sent;
    }

    /**
     * Opens {@code count} connections, asks each for {@code /v0/status}, runs {@code whileHeld} with them open and idle,
     * and asks each once more before closing it: meanwhile the server runs each one's timeout check as often as its
     * options say, and the second answer proves the checks left live connections alone.
     *
     * @throws IOException           when a connection fails
     * @throws IllegalStateException when an answer is not 200
     */
    public void holdConnections(int count, Runnable whileHeld) throws IOException {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                held.add(Connection.open(address));
            }
            askStatus(held, 0);
            whileHeld.run();
            askStatus(held, 1);
        } finally {
            for (Connection c : held) {
                c.close();
            }
        }
    }

    /**
     * Runs {@code whileAsking} with a step that asks the admin listener for {@code adminPath} once more on one
     * connection (by turns as curl does and as Prometheus does, which asks for OpenMetrics) and checks the answer is
     * 200; the step throws {@link UncheckedIOException} when the connection fails.
     *
     * @return how many times it was asked
     * @throws IOException           when the connection cannot be opened
     * @throws IllegalStateException when an answer is not 200, or there is no admin listener
     */
    public long askAdminRepeatedly(String adminPath, Consumer<Runnable> whileAsking) throws IOException {
        if (admin == null) {
            throw new IllegalStateException("warm-up: no admin listener to ask for " + adminPath);
        }
        try (Connection connection = Connection.open(admin)) {
            int[] turn = {0};
            whileAsking.accept(() -> {
                String[] headers = ADMIN_HEADER_SHAPES[turn[0]++ % ADMIN_HEADER_SHAPES.length];
                try {
                    ask(connection, new Step(get(adminPath, headers), 200));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            return turn[0];
        }
    }

    private static void askStatus(List<Connection> connections, int turn) throws IOException {
        for (int i = 0; i < connections.size(); i++) {
            ask(connections.get(i), new Step(get("/v0/status", HEADER_SHAPES[(i + turn) % HEADER_SHAPES.length]), 200));
        }
    }

    /** Sends one request alone on {@code connection} and checks its answer. */
    private static void ask(Connection connection, Step step) throws IOException {
        connection.send(step.request().getBytes(StandardCharsets.US_ASCII));
        expect(step, readResponse(connection.in()));
    }

    /**
     * One request on each shaped connection, all in flight together: PUTs in the first round (so the GETs after it
     * find their key), then four PUTs and four GETs by turns, every other pair written in three fragments (cut inside
     * the request line, then in a PUT's body or a GET's headers) with a pause between them. Like calls side by side
     * that arrive within one event-loop iteration (as they do on one core, where the benchmarks pin the server) reach a
     * worker as one run, which it reads with one MultiGet or writes as one batch: with PUTs and GETs alternating one
     * by one, the worker's batched read was never run in the warm-up, the first GET phase of a load compiled it, and
     * C2 had it only 21 s into that phase (docs/performance.md, "Session 39").
     */
    private static int shapedRound(List<Connection> connections, int round) throws IOException {
        List<Step> steps = new ArrayList<>();
        List<byte[][]> fragments = new ArrayList<>();
        for (int i = 0; i < connections.size(); i++) {
            String id = shapedId(i);
            boolean put = round == 0 || ((round + i / 4) & 1) == 0;
            String[] headers = HEADER_SHAPES[(round + i) % HEADER_SHAPES.length];
            Step step = put ? new Step(put(id, headers), 201) : new Step(get("/v0/entity?id=" + id, headers), 200);
            steps.add(step);
            byte[] bytes = step.request().getBytes(StandardCharsets.US_ASCII);
            fragments.add(((round + i / 2) & 1) == 0 ? new byte[][] {bytes} : split(bytes));
        }
        for (int part = 0; part < 3; part++) {
            boolean wrote = false;
            for (int i = 0; i < connections.size(); i++) {
                if (part < fragments.get(i).length) {
                    connections.get(i).send(fragments.get(i)[part]);
                    wrote = true;
                }
            }
            if (wrote && part < 2) {
                LockSupport.parkNanos(FRAGMENT_PAUSE_NANOS);
            }
        }
        for (int i = 0; i < connections.size(); i++) {
            expect(steps.get(i), readResponse(connections.get(i).in()));
        }
        return connections.size();
    }

    /** Three pieces: cut inside the request line and two thirds of the way through the rest. */
    private static byte[][] split(byte[] request) {
        int first = 10;
        int second = first + (request.length - first) * 2 / 3;
        return new byte[][] {
                Arrays.copyOfRange(request, 0, first),
                Arrays.copyOfRange(request, first, second),
                Arrays.copyOfRange(request, second, request.length)};
    }

    private static String shapedId(int connection) {
        return "%00larder-warmup-shaped-" + connection;
    }

    private static void expect(Step step, int status) {
        if (status != step.status()) {
            throw new IllegalStateException("warm-up: " + step.request().lines().findFirst().orElse("")
                    + " answered " + status + ", expected " + step.status());
        }
    }

    private static List<Step> steps(int round) {
        // A key no client would pick (percent-encoded NUL first), written and deleted within the round.
        String id = "%00larder-warmup-" + (round & 1023);
        String[] h = HEADER_SHAPES[round % HEADER_SHAPES.length];
        return List.of(
                new Step(put(id, h), 201),
                new Step(get("/v0/entity?id=" + id, h), 200),
                new Step(get("/v0/entities?start=" + id + "&end=" + id + "%3A", h), 200),
                new Step(delete(id, h), 202),
                new Step(get("/v0/entity?id=" + id, h), 404),
                new Step(get("/v0/status", h), 200),
                new Step(get("/v0/entity", h), 400),
                new Step("POST /v0/entity?id=" + id + " HTTP/1.1\r\n" + h[0] + h[1] + "0\r\n\r\n", 405),
                new Step(get("/v0/nowhere", h), 400));
    }

    /** {@code headers}: a header block (each line ending in CRLF) and the spelling of the content-length name. */
    private static String put(String id, String[] headers) {
        return "PUT /v0/entity?id=" + id + " HTTP/1.1\r\n" + headers[0] + headers[1] + VALUE.length() + "\r\n\r\n"
                + VALUE;
    }

    private static String delete(String id, String[] headers) {
        return "DELETE /v0/entity?id=" + id + " HTTP/1.1\r\n" + headers[0] + "\r\n";
    }

    private static String get(String target, String[] headers) {
        return "GET " + target + " HTTP/1.1\r\n" + headers[0] + "\r\n";
    }

    /** Reads one response (Content-Length or chunked body) and returns its status. */
    private static int readResponse(InputStream in) throws IOException {
        String statusLine = readLine(in);
        int status = Integer.parseInt(statusLine.substring(9, 12));
        long length = 0;
        boolean chunked = false;
        for (String header = readLine(in); !header.isEmpty(); header = readLine(in)) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (!chunked) {
            skip(in, length);
            return status;
        }
        for (long chunk = Long.parseLong(readLine(in).trim(), 16); chunk > 0;
                chunk = Long.parseLong(readLine(in).trim(), 16)) {
            skip(in, chunk + 2);
        }
        while (!readLine(in).isEmpty()) {
            // trailers
        }
        return status;
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("warm-up: connection closed mid-response");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    private static void skip(InputStream in, long n) throws IOException {
        in.skipNBytes(n);
    }
}
