package dev.larder.server.answer;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * One whole response as bytes: a status line and fixed headers encoded once, then a body. The event loop that sends
 * it adds {@code content-length} and, when the connection ends with it, {@code connection: close}.
 *
 * <p>Why not Netty's {@code FullHttpResponse} and {@code HttpResponseEncoder}: every GET, PUT and DELETE answer is one
 * of a handful of shapes, and building a header map, validating its names and encoding it again for each request was
 * about a tenth of the event loop's Java time in a profile. Immutable; built on any thread.
 */
public final class Answer {

    private static final byte[] CONTENT_LENGTH = "content-length: ".getBytes(US_ASCII);
    private static final byte[] CLOSE = "connection: close\r\n".getBytes(US_ASCII);
    private static final short CRLF = ('\r' << 8) | '\n';
    // Larger bodies go out as a second buffer wrapping the value instead of being copied behind the head.
    private static final int COPY_BODY_UP_TO = 1024;

    private final HttpResponseStatus status;
    private final byte[] head;
    private final byte[] body;

    private Answer(HttpResponseStatus status, byte[] head, byte[] body) {
        this.status = status;
        this.head = head;
        this.body = body;
    }

    /** Starts an answer: {@code HTTP/1.1 <status>} and, when not {@code null}, a {@code content-type}. */
    static Builder of(HttpResponseStatus status, String contentType) {
        return new Builder(status, contentType);
    }

    public HttpResponseStatus status() {
        return status;
    }

    /** The same status line and headers with another body. */
    Answer withBody(byte[] newBody) {
        return new Answer(status, head, newBody);
    }

    /**
     * Writes the answer to {@code out} and flushes, then closes the connection when {@code close}; the caller's
     * context must sit below any HTTP encoder, since these are wire bytes. An answer that keeps the connection is
     * written with the void promise: nothing waits for it, and a failed write reaches the pipeline's
     * {@code exceptionCaught} (which closes), or under TLS the transport's own close on the I/O error, instead of a
     * future no one reads; a promise per answer was 6% of what the event loop allocated per GET.
     */
    public void writeAndFlush(ChannelHandlerContext out, boolean close) {
        boolean copyBody = body.length <= COPY_BODY_UP_TO;
        ByteBuf buf = encodeHead(out.alloc(), close, copyBody ? body.length : 0);
        if (!copyBody) {
            out.write(buf, out.voidPromise());
            buf = Unpooled.wrappedBuffer(body);
        } else {
            buf.writeBytes(body);
        }
        if (close) {
            out.writeAndFlush(buf).addListener(ChannelFutureListener.CLOSE);
        } else {
            out.writeAndFlush(buf, out.voidPromise());
        }
    }

    private ByteBuf encodeHead(ByteBufAllocator alloc, boolean close, int room) {
        ByteBuf buf = alloc.buffer(head.length + CONTENT_LENGTH.length + 12 + CLOSE.length + 2 + room);
        buf.writeBytes(head).writeBytes(CONTENT_LENGTH);
        writeDecimal(buf, body.length);
        buf.writeShort(CRLF);
        if (close) {
            buf.writeBytes(CLOSE);
        }
        buf.writeShort(CRLF);
        return buf;
    }

    private static void writeDecimal(ByteBuf buf, int value) {
        if (value == 0) {
            buf.writeByte('0');
            return;
        }
        int digits = 0;
        for (int v = value; v > 0; v /= 10) {
            digits++;
        }
        int at = buf.writerIndex() + digits;
        buf.ensureWritable(digits);
        for (int v = value; v > 0; v /= 10) {
            buf.setByte(--at, '0' + v % 10);
        }
        buf.writerIndex(buf.writerIndex() + digits);
    }

    /** Collects the fixed headers of an answer; names are lower case, as HTTP/2 and Netty write them. */
    static final class Builder {
        private final HttpResponseStatus status;
        private final StringBuilder head = new StringBuilder(96);

        private Builder(HttpResponseStatus status, String contentType) {
            this.status = status;
            head.append("HTTP/1.1 ").append(status.code()).append(' ').append(status.reasonPhrase()).append("\r\n");
            if (contentType != null) {
                header("content-type", contentType);
            }
        }

        Builder header(String name, String value) {
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '\r' || c == '\n' || c > 0x7e) {
                    throw new IllegalArgumentException("header " + name + " value must be printable ASCII: " + value);
                }
            }
            head.append(name).append(": ").append(value).append("\r\n");
            return this;
        }

        Answer body(byte[] body) {
            return new Answer(status, head.toString().getBytes(US_ASCII), body);
        }
    }
}
