package dev.larder.server.http;

import io.netty.handler.codec.http.FullHttpRequest;

/**
 * Serves one (method, path) of the {@link Routes} table. Runs on the event loop and must not block; {@code request}
 * is released when this returns, so anything kept is copied out first.
 */
@FunctionalInterface
interface RouteHandler {

    void handle(FullHttpRequest request, Exchange exchange);
}
