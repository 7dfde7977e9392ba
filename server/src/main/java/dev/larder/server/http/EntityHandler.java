package dev.larder.server.http;

import dev.larder.server.answer.HttpResponses;
import dev.larder.server.entity.EntityCall;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code GET}, {@code PUT} or {@code DELETE /v0/entity?id=ID}: checks the id, copies id and body out of the request
 * buffer, and hands the call to the workers (the worker the event loop picks for its iteration's calls).
 */
final class EntityHandler implements RouteHandler {

    private final EntityCall.Operation operation;

    EntityHandler(EntityCall.Operation operation) {
        this.operation = operation;
    }

    @Override
    public void handle(FullHttpRequest request, Exchange exchange) {
        byte[] id = exchange.param(request.uri(), "id");
        if (id == null) {
            return;
        }
        if (id.length == 0) {
            exchange.answer(HttpResponses.text(HttpResponseStatus.BAD_REQUEST, "missing id parameter"));
            return;
        }
        byte[] value = operation == EntityCall.Operation.PUT ? ByteBufUtil.getBytes(request.content()) : null;
        exchange.submit(new EntityCall(exchange, exchange.server(), operation, id, value));
    }
}
