package dev.larder.server.admin;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/** The admin listener's responses: always with a length, plain text unless the endpoint says otherwise. */
final class AdminResponses {

    static final String TEXT = "text/plain; charset=utf-8";

    private AdminResponses() {
    }

    /** A one-line text answer. */
    static FullHttpResponse text(HttpResponseStatus status, String line) {
        return body(status, TEXT, Unpooled.wrappedBuffer((line + "\n").getBytes(UTF_8)));
    }

    /** {@code content} (ownership passes to the response) with its type. */
    static FullHttpResponse body(HttpResponseStatus status, String contentType, ByteBuf content) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes())
                // Monitoring answers describe this instant; a cache in between would lie.
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        return response;
    }
}
