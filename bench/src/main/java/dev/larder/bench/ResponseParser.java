package dev.larder.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.util.ByteProcessor;

/**
 * An incremental HTTP/1.1 response parser that only learns what a load generator needs: the status code, where the
 * response ends (Content-Length, chunked, or end of connection) and whether the connection stays open. Headers and
 * body are skipped without being copied or decoded, which is what lets one generator thread keep up with wrk.
 *
 * <p>Feed it every inbound buffer with {@link #parse(ByteBuf)}; when it returns {@code true} one whole response has
 * been consumed (bytes after it stay in the buffer) and {@link #status()}/{@link #keepAlive()} describe it; call
 * {@link #reset()} before the next one. Not thread-safe: one per connection, used on its event loop.
 */
final class ResponseParser {

    /** Thrown for bytes that are not an HTTP/1.x response. */
    static final class MalformedResponseException extends Exception {
        MalformedResponseException(String message) {
            super(message, null, false, false);
        }
    }

    private enum State { STATUS_LINE, HEADER, BODY_FIXED, CHUNK_SIZE, CHUNK_DATA, CHUNK_DATA_END, TRAILER,
        BODY_UNTIL_CLOSE, DONE }

    private static final int MAX_LINE = 64 * 1024;

    // Holds the start of a line that was split across two reads; most lines never touch it. Built directly (not
    // through an allocator) so it is plain garbage-collected memory that needs no release.
    private final ByteBuf partialLine = new UnpooledHeapByteBuf(UnpooledByteBufAllocator.DEFAULT, 256, MAX_LINE);
    private State state = State.STATUS_LINE;
    private int status;
    private boolean http10;
    private boolean keepAlive;
    private boolean connectionHeaderSeen;
    private long contentLength;
    private boolean chunked;
    private long remaining;

    int status() {
        return status;
    }

    boolean keepAlive() {
        return keepAlive;
    }

    /** True between the first byte of a response and its end. */
    boolean inProgress() {
        return state != State.STATUS_LINE || partialLine.isReadable();
    }

    void reset() {
        state = State.STATUS_LINE;
        status = 0;
        http10 = false;
        keepAlive = true;
        connectionHeaderSeen = false;
        contentLength = -1;
        chunked = false;
        remaining = 0;
        partialLine.clear();
    }

    ResponseParser() {
        reset();
    }

    /**
     * The connection closed: a body delimited by the close is now complete ({@code true}); any other partial
     * response is lost ({@code false}).
     */
    boolean endOfInput() {
        if (state == State.BODY_UNTIL_CLOSE) {
            state = State.DONE;
            keepAlive = false;
            return true;
        }
        return false;
    }

    /** Consumes bytes from {@code in}; {@code true} when a whole response has been read. */
    boolean parse(ByteBuf in) throws MalformedResponseException {
        while (in.isReadable()) {
            switch (state) {
                case STATUS_LINE, HEADER, CHUNK_SIZE, CHUNK_DATA_END, TRAILER -> {
                    if (!line(in)) {
                        return false;
                    }
                    if (state == State.DONE) {
                        return true;
                    }
                }
                case BODY_FIXED, CHUNK_DATA -> {
                    int n = (int) Math.min(remaining, in.readableBytes());
                    in.skipBytes(n);
                    remaining -= n;
                    if (remaining == 0) {
                        if (state == State.BODY_FIXED) {
                            state = State.DONE;
                            return true;
                        }
                        state = State.CHUNK_DATA_END;
                    }
                }
                case BODY_UNTIL_CLOSE -> in.skipBytes(in.readableBytes());
                case DONE -> {
                    return true;
                }
                default -> throw new IllegalStateException(state.name());
            }
        }
        return state == State.DONE;
    }

    // Reads one CRLF-terminated line (in place when it arrived whole) and acts on it; false if it is incomplete.
    private boolean line(ByteBuf in) throws MalformedResponseException {
        int start = in.readerIndex();
        int lf = in.forEachByte(start, in.readableBytes(), ByteProcessor.FIND_LF);
        if (lf < 0) {
            if (partialLine.readableBytes() + in.readableBytes() > MAX_LINE) {
                throw new MalformedResponseException("response line longer than " + MAX_LINE + " bytes");
            }
            partialLine.writeBytes(in);
            return false;
        }
        if (partialLine.isReadable()) {
            partialLine.writeBytes(in, start, lf - start);
            in.readerIndex(lf + 1);
            int end = partialLine.writerIndex();
            onLine(partialLine, partialLine.readerIndex(), trimCr(partialLine, partialLine.readerIndex(), end));
            partialLine.clear();
        } else {
            in.readerIndex(lf + 1);
            onLine(in, start, trimCr(in, start, lf));
        }
        return true;
    }

    private static int trimCr(ByteBuf buf, int start, int end) {
        return end > start && buf.getByte(end - 1) == '\r' ? end - 1 : end;
    }

    private void onLine(ByteBuf buf, int start, int end) throws MalformedResponseException {
        switch (state) {
            case STATUS_LINE -> statusLine(buf, start, end);
            case HEADER -> {
                if (end == start) {
                    headersDone();
                } else {
                    header(buf, start, end);
                }
            }
            case CHUNK_SIZE -> {
                long size = hex(buf, start, end);
                if (size == 0) {
                    state = State.TRAILER;
                } else {
                    remaining = size;
                    state = State.CHUNK_DATA;
                }
            }
            case CHUNK_DATA_END -> {
                if (end != start) {
                    throw new MalformedResponseException("missing CRLF after chunk data");
                }
                state = State.CHUNK_SIZE;
            }
            case TRAILER -> {
                if (end == start) {
                    state = State.DONE;
                }
            }
            default -> throw new IllegalStateException(state.name());
        }
    }

    // "HTTP/1.1 200 OK"
    private void statusLine(ByteBuf buf, int start, int end) throws MalformedResponseException {
        if (end - start < 12 || buf.getByte(start) != 'H' || buf.getByte(start + 4) != '/'
                || buf.getByte(start + 8) != ' ') {
            throw new MalformedResponseException("not an HTTP/1.x status line: "
                    + buf.toString(start, Math.min(end - start, 80), java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        http10 = buf.getByte(start + 7) == '0';
        keepAlive = !http10;
        int code = 0;
        for (int i = start + 9; i < start + 12; i++) {
            byte b = buf.getByte(i);
            if (b < '0' || b > '9') {
                throw new MalformedResponseException("bad status code in status line");
            }
            code = code * 10 + (b - '0');
        }
        status = code;
        state = State.HEADER;
    }

    private void header(ByteBuf buf, int start, int end) throws MalformedResponseException {
        byte first = (byte) (buf.getByte(start) | 0x20);
        if (first == 'c') {
            if (nameIs(buf, start, end, "content-length")) {
                contentLength = decimal(buf, valueStart(buf, start + 15, end), end);
            } else if (nameIs(buf, start, end, "connection")) {
                connectionHeaderSeen = true;
                int v = valueStart(buf, start + 11, end);
                if (containsIgnoreCase(buf, v, end, "close")) {
                    keepAlive = false;
                } else if (http10 && containsIgnoreCase(buf, v, end, "keep-alive")) {
                    keepAlive = true;
                }
            }
        } else if (first == 't' && nameIs(buf, start, end, "transfer-encoding")) {
            chunked = containsIgnoreCase(buf, valueStart(buf, start + 18, end), end, "chunked");
        }
    }

    private void headersDone() {
        if (http10 && !connectionHeaderSeen) {
            keepAlive = false;
        }
        if (status == 204 || status == 304 || (status >= 100 && status < 200)) {
            state = State.DONE;
        } else if (chunked) {
            state = State.CHUNK_SIZE;
        } else if (contentLength >= 0) {
            if (contentLength == 0) {
                state = State.DONE;
            } else {
                remaining = contentLength;
                state = State.BODY_FIXED;
            }
        } else {
            keepAlive = false;
            state = State.BODY_UNTIL_CLOSE;
        }
    }

    // True if the header line starts with "name:" (case-insensitive).
    private static boolean nameIs(ByteBuf buf, int start, int end, String name) {
        int n = name.length();
        if (end - start <= n || buf.getByte(start + n) != ':') {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if ((buf.getByte(start + i) | 0x20) != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static int valueStart(ByteBuf buf, int from, int end) {
        int i = from;
        while (i < end && (buf.getByte(i) == ' ' || buf.getByte(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static boolean containsIgnoreCase(ByteBuf buf, int start, int end, String word) {
        int n = word.length();
        outer:
        for (int i = start; i + n <= end; i++) {
            for (int j = 0; j < n; j++) {
                if ((buf.getByte(i + j) | 0x20) != word.charAt(j)) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static long decimal(ByteBuf buf, int start, int end) throws MalformedResponseException {
        long v = 0;
        int i = start;
        for (; i < end; i++) {
            byte b = buf.getByte(i);
            if (b < '0' || b > '9') {
                break;
            }
            v = v * 10 + (b - '0');
        }
        if (i == start) {
            throw new MalformedResponseException("bad Content-Length");
        }
        return v;
    }

    private static long hex(ByteBuf buf, int start, int end) throws MalformedResponseException {
        long v = 0;
        int i = start;
        for (; i < end; i++) {
            int b = buf.getByte(i);
            int d;
            if (b >= '0' && b <= '9') {
                d = b - '0';
            } else if ((b | 0x20) >= 'a' && (b | 0x20) <= 'f') {
                d = (b | 0x20) - 'a' + 10;
            } else {
                break; // chunk extensions (";name=value") and trailing blanks are ignored
            }
            v = (v << 4) | d;
        }
        if (i == start) {
            throw new MalformedResponseException("bad chunk size");
        }
        return v;
    }
}
