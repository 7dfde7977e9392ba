package dev.larder.server;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/** Builds every response the server sends; each carries {@code Content-Length} so keep-alive never breaks. */
final class HttpResponses {

    private HttpResponses() {
    }

    /** A body-less answer ({@code 201}, {@code 202}, ...). */
    static FullHttpResponse empty(HttpResponseStatus status) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        return response;
    }

    /** Stored bytes, wrapped without copying. */
    static FullHttpResponse value(byte[] value) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(value));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, value.length);
        return response;
    }

    /** A one-line plain-text answer: the reason a client (or a person with curl) can read. */
    static FullHttpResponse text(HttpResponseStatus status, String line) {
        // One line, whatever the reason text carried: clients and log scrapers read it as such.
        byte[] body = (line.replace('\r', ' ').replace('\n', ' ') + "\n").getBytes(UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN + "; charset=utf-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return response;
    }

    /** 503 for a request refused without touching storage; clients may retry after a second. */
    static FullHttpResponse unavailable(RejectReason reason) {
        FullHttpResponse response = text(HttpResponseStatus.SERVICE_UNAVAILABLE, reason.message());
        response.headers().setInt(HttpHeaderNames.RETRY_AFTER, 1);
        return response;
    }

    /** 405 naming the methods the route does accept. */
    static FullHttpResponse methodNotAllowed(String allow) {
        FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed; use " + allow);
        response.headers().set(HttpHeaderNames.ALLOW, allow);
        return response;
    }

    /** Marks {@code response} as the last on its connection. */
    static FullHttpResponse closing(FullHttpResponse response) {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
