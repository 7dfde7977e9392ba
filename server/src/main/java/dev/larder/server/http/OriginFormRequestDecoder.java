package dev.larder.server.http;

import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestDecoder;

/**
 * Netty's request decoder, with a target in absolute form turned into its {@link OriginForm} as the request line is
 * decoded (before, such a request was 400 "unknown path"). Doing it here, not in a handler of its own, costs the data
 * port's pipeline no extra step per request.
 */
final class OriginFormRequestDecoder extends HttpRequestDecoder {

    OriginFormRequestDecoder(HttpDecoderConfig config) {
        super(config);
    }

    @Override
    protected HttpMessage createMessage(String[] initialLine) throws Exception {
        initialLine[1] = OriginForm.of(initialLine[1]);
        return super.createMessage(initialLine);
    }
}
