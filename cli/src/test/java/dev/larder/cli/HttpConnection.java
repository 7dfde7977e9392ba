package dev.larder.cli;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection over a plain socket, strict about what it reads: a process-level test must tell
 * a response that never started (the server had not taken the request) from one cut off half-way (a broken promise).
 * Only {@code Content-Length} responses are expected (every /v0/entity answer carries one).
 */
public final class HttpConnection implements AutoCloseable {

    /** A complete response. */
    public record Response(int status, byte[] body, boolean close) {
    }

    /** The connection ended before a single byte of the response arrived. */
    public static final class NoResponse extends IOException {
        NoResponse(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The connection ended after part of a response: the server cut it off. */
    public static final class PartialResponse extends IOException {
        PartialResponse(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public HttpConnection(int port, int readTimeoutMillis) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(readTimeoutMillis);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        out = socket.getOutputStream();
    }

    public static byte[] request(String method, String target, byte[] body) {
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: larder\r\n");
        if (body != null) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] h = head.toString().getBytes(ISO_8859_1);
        if (body == null) {
            return h;
        }
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    /** Writes raw request bytes; a failure here means the server is not taking requests on this connection. */
    public void send(byte[] request) throws NoResponse {
        try {
            out.write(request);
            out.flush();
        } catch (IOException e) {
            throw new NoResponse("send failed: " + e, e);
        }
    }

    public Response exchange(String method, String target, byte[] body) throws IOException {
        send(request(method, target, body));
        return read();
    }

    /**
     * Reads one response. Throws {@link NoResponse} when the connection ends (EOF or reset) before its first byte,
     * {@link PartialResponse} when it ends inside it; a read timeout is a plain {@link java.net.SocketTimeoutException}.
     */
    public Response read() throws IOException {
        int first;
        try {
            first = in.read();
        } catch (java.net.SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            throw new NoResponse("connection failed before the response: " + e, e);
        }
        if (first == -1) {
            throw new NoResponse("connection closed before the response", null);
        }
        try {
            String statusLine = (char) first + line();
            String[] parts = statusLine.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
                throw new PartialResponse("not a status line: " + statusLine);
            }
            int status = Integer.parseInt(parts[1]);
            int length = -1;
            boolean close = false;
            for (String h = line(); !h.isEmpty(); h = line()) {
                int colon = h.indexOf(':');
                String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = h.substring(colon + 1).trim();
                if (name.equals("content-length")) {
                    length = Integer.parseInt(value);
                } else if (name.equals("connection") && value.equalsIgnoreCase("close")) {
                    close = true;
                }
            }
            if (length < 0) {
                throw new PartialResponse("status " + status + " without Content-Length");
            }
            byte[] body = in.readNBytes(length);
            if (body.length < length) {
                throw new PartialResponse("status " + status + ": body cut at " + body.length + " of " + length);
            }
            return new Response(status, body, close);
        } catch (PartialResponse e) {
            throw e;
        } catch (java.net.SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            throw new PartialResponse("connection failed inside a response: " + e);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(64);
        for (int b = in.read(); b != -1; b = in.read()) {
            if (b == '\n') {
                byte[] bytes = buf.toByteArray();
                int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, ISO_8859_1);
            }
            buf.write(b);
        }
        throw new PartialResponse("connection closed inside the response head");
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
