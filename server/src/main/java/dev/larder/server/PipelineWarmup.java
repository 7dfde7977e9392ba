package dev.larder.server;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Sends every kind of request the data listener answers (PUT, GET hit and miss, range, DELETE, status, and the 400,
 * 404 and 405 errors) through a real connection, many times over, so that C2 has compiled each path before the
 * first user request arrives. Without it the first phase of each kind of request paid for its own compilation: the
 * compiler threads took 20-37% of the server's core for 2-3 s right after each workload switch, on the core the
 * event loop needed (docs/performance.md).
 *
 * <p>Requests are pipelined in rounds on one keep-alive connection and every answer's status is checked, so a
 * warm-up also proves that each path answers as it should.
 */
public final class PipelineWarmup {

    /** One request of a round and the status it must get. */
    private record Step(String request, int status) {
    }

    private static final int ROUNDS_PER_WRITE = 16;
    private static final String VALUE = "v".repeat(64);

    private final InetSocketAddress address;

    public PipelineWarmup(InetSocketAddress address) {
        this.address = address;
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
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(30_000);
            socket.connect(address, 10_000);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            List<Step> batch = new ArrayList<>();
            int round = 0;
            while (sent < requests) {
                batch.clear();
                for (int i = 0; i < ROUNDS_PER_WRITE; i++, round++) {
                    batch.addAll(steps(round));
                }
                for (Step step : batch) {
                    out.write(step.request().getBytes(StandardCharsets.US_ASCII));
                }
                out.flush();
                for (Step step : batch) {
                    int status = readResponse(in);
                    if (status != step.status()) {
                        throw new IllegalStateException("warm-up: " + step.request().lines().findFirst()
                                .orElse("") + " answered " + status + ", expected " + step.status());
                    }
                    sent++;
                }
            }
        }
        return sent;
    }

    private static List<Step> steps(int round) {
        // A key no client would pick (percent-encoded NUL first), written and deleted within the round.
        String id = "%00larder-warmup-" + (round & 1023);
        return List.of(
                new Step("PUT /v0/entity?id=" + id + " HTTP/1.1\r\nhost: warmup\r\ncontent-length: " + VALUE.length()
                        + "\r\n\r\n" + VALUE, 201),
                new Step(get("/v0/entity?id=" + id), 200),
                new Step(get("/v0/entities?start=" + id + "&end=" + id + "%3A"), 200),
                new Step("DELETE /v0/entity?id=" + id + " HTTP/1.1\r\nhost: warmup\r\n\r\n", 202),
                new Step(get("/v0/entity?id=" + id), 404),
                new Step(get("/v0/status"), 200),
                new Step(get("/v0/entity"), 400),
                new Step("POST /v0/entity?id=" + id + " HTTP/1.1\r\nhost: warmup\r\ncontent-length: 0\r\n\r\n", 405),
                new Step(get("/v0/nowhere"), 400));
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nhost: warmup\r\n\r\n";
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
