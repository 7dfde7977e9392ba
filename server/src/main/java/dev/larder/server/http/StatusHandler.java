package dev.larder.server.http;

import dev.larder.server.answer.HttpResponses;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;

/** {@code GET /v0/status}: 200 on the event loop, without touching the workers or the store. */
final class StatusHandler implements RouteHandler {

    @Override
    public void handle(FullHttpRequest request, Exchange exchange) {
        exchange.answer(HttpResponses.text(HttpResponseStatus.OK, "OK"));
    }
}
