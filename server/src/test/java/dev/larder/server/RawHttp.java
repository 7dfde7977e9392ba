package dev.larder.server;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A byte-exact HTTP/1.1 client over a plain socket, for what java.net.http will not send: pipelined requests,
 * malformed lines, lying Content-Length, raw key bytes.
 */
public final class RawHttp implements AutoCloseable {

    /** A parsed response. */
    public record Response(int status, Map<String, String> headers, byte[] body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(InetSocketAddress address) throws IOException {
        this(address, 0);
    }

    /** With {@code receiveBuffer > 0}, a fixed socket receive buffer (no kernel auto-tuning) of that size. */
    RawHttp(InetSocketAddress address, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(address, 5_000);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        in = new java.io.BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    Socket socket() {
        return socket;
    }

    RawHttp send(String raw) throws IOException {
        return send(raw.getBytes(ISO_8859_1));
    }

    RawHttp send(byte[] raw) throws IOException {
        out.write(raw);
        out.flush();
        return this;
    }

    static String request(String method, String target, String body) {
        StringBuilder sb = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: x\r\n");
        if (body != null) {
            sb.append("Content-Length: ").append(body.getBytes(ISO_8859_1).length).append("\r\n\r\n").append(body);
        } else {
            sb.append("\r\n");
        }
        return sb.toString();
    }

    public Response exchange(String method, String target, String body) throws IOException {
        send(request(method, target, body));
        return read();
    }

    /** Reads one response; for HEAD-less requests only. */
    Response read() throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        String[] parts = statusLine.split(" ", 3);
        int status = Integer.parseInt(parts[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String h = line(); h != null && !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            headers.merge(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim(),
                    (a, b) -> a + ", " + b);
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            while (true) {
                int size = Integer.parseInt(line().trim(), 16);
                if (size == 0) {
                    line();
                    break;
                }
                all.write(in.readNBytes(size));
                line();
            }
            body = all.toByteArray();
        } else if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else if (status == 100 || status == 204 || status == 304) {
            body = new byte[0];
        } else {
            body = in.readAllBytes();
        }
        return new Response(status, headers, body);
    }

    /** Whether the server closed the connection (EOF within the socket timeout). */
    boolean closedByServer() {
        try {
            return in.read() == -1;
        } catch (IOException e) {
            return true;
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                byte[] bytes = buf.toByteArray();
                int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, ISO_8859_1);
            }
            buf.write(b);
        }
        return buf.size() == 0 ? null : buf.toString(ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
