package dev.larder.server.http;

import dev.larder.server.answer.HttpResponses;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;

/** {@code GET /v0/entities?start=S[&end=E]}: checks the bounds and streams the range. */
final class RangeHandler implements RouteHandler {

    @Override
    public void handle(FullHttpRequest request, Exchange exchange) {
        String uri = request.uri();
        byte[] start = exchange.param(uri, "start");
        if (start == null) {
            return;
        }
        if (start.length == 0) {
            exchange.answer(HttpResponses.text(HttpResponseStatus.BAD_REQUEST, "missing start parameter"));
            return;
        }
        byte[] end = exchange.param(uri, "end");
        if (end == null) {
            return;
        }
        // No end (or an empty one) means: to the last key.
        exchange.streamRange(start, end.length == 0 ? null : end);
    }
}
