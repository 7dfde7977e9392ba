package dev.larder.cli.deploy;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many small requests to one HTTP/1.1 server, cheaply: a few keep-alive connections, each sending its requests in
 * pipelined batches. Far less CPU per request than java.net.http, which matters on a two-core CI machine that also
 * runs the three nodes and nginx. Understands Content-Length and chunked bodies, and {@code Connection: close}
 * (what it had not been answered yet is sent again on a new connection).
 */
final class BulkHttp {

    /** One request; {@code body} null for none. */
    record Request(String method, String target, byte[] body) {
    }

    /** One answer; status -1 with the error as body when the exchange failed. */
    record Response(int status, String body) {
        @Override
        public String toString() {
            return status + " " + (body.length() > 200 ? body.substring(0, 200) + "..." : body.strip());
        }
    }

    private static final int CONNECTIONS = 4;
    private static final int BATCH = 32;
    /** Requests per connection before opening a new one: stays under nginx's keepalive_requests (1000). */
    private static final int PER_CONNECTION = 512;

    private final String host;
    private final int port;

    BulkHttp(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** Sends every request and returns the responses in the same order. */
    List<Response> send(List<Request> requests) throws InterruptedException {
        Response[] responses = new Response[requests.size()];
        AtomicInteger nextSlice = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < CONNECTIONS; c++) {
                workers.add(threads.submit(() -> {
                    for (int from; (from = nextSlice.getAndAdd(PER_CONNECTION)) < requests.size(); ) {
                        exchange(requests, from, Math.min(from + PER_CONNECTION, requests.size()), responses);
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            threads.shutdownNow();
        }
        return List.of(responses);
    }

    /** Requests [from, to) over as few connections as the server allows. */
    private void exchange(List<Request> requests, int from, int to, Response[] responses) {
        int next = from;
        int attempts = 0;
        while (next < to) {
            if (++attempts > 10) {
                for (int i = next; i < to; i++) {
                    responses[i] = new Response(-1, "connection kept closing");
                }
                return;
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), 5_000);
                socket.setSoTimeout(30_000);
                socket.setTcpNoDelay(true);
                OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
                InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
                boolean open = true;
                while (open && next < to) {
                    int end = Math.min(next + BATCH, to);
                    for (int i = next; i < end; i++) {
                        write(out, requests.get(i));
                    }
                    out.flush();
                    for (int i = next; i < end && open; i++) {
                        ParsedResponse r = read(in);
                        responses[i] = r.response;
                        next = i + 1;
                        open = !r.close;
                    }
                }
            } catch (IOException e) {
                // The connection broke mid-batch: what has no answer is sent again (the requests are idempotent).
                if (attempts >= 10) {
                    responses[next] = new Response(-1, e.toString());
                    next++;
                }
            }
        }
    }

    private void write(OutputStream out, Request request) throws IOException {
        StringBuilder head = new StringBuilder(128).append(request.method()).append(' ').append(request.target())
                .append(" HTTP/1.1\r\nHost: ").append(host).append(':').append(port).append("\r\n");
        if (request.body() != null) {
            head.append("Content-Length: ").append(request.body().length).append("\r\n");
        }
        out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
        if (request.body() != null) {
            out.write(request.body());
        }
    }

    private record ParsedResponse(Response response, boolean close) {
    }

    private static ParsedResponse read(InputStream in) throws IOException {
        String statusLine = line(in);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP response: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        long length = -1;
        boolean chunked = false;
        boolean close = parts[0].equals("HTTP/1.0");
        for (String header; !(header = line(in)).isEmpty(); ) {
            int colon = header.indexOf(':');
            String name = header.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).strip().toLowerCase(Locale.ROOT);
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.contains("chunked");
                case "connection" -> close = value.contains("close") || (close && !value.contains("keep-alive"));
                default -> { }
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (long size; (size = Long.parseLong(line(in).split(";")[0].strip(), 16)) > 0; ) {
                copy(in, body, size);
                line(in);
            }
            while (!line(in).isEmpty()) {
                // trailers
            }
        } else if (length >= 0) {
            copy(in, body, length);
        } else {
            throw new IOException("response without a length: " + statusLine);
        }
        return new ParsedResponse(new Response(status, body.toString(StandardCharsets.UTF_8)), close);
    }

    private static void copy(InputStream in, ByteArrayOutputStream to, long n) throws IOException {
        byte[] buffer = new byte[8192];
        while (n > 0) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, n));
            if (read < 0) {
                throw new EOFException("body ended early");
            }
            to.write(buffer, 0, read);
            n -= read;
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new EOFException("connection closed");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
