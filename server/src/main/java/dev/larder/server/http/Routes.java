package dev.larder.server.http;

import dev.larder.server.answer.Answer;
import dev.larder.server.answer.HttpResponses;
import dev.larder.server.entity.EntityCall;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The data port's API: each path with the handler of each method it accepts. */
final class Routes {

    /** {@code /v0}: what the README's API table lists. */
    static final Routes V0 = new Routes()
            .add("/v0/entity", HttpMethod.GET, new EntityHandler(EntityCall.Operation.GET))
            .add("/v0/entity", HttpMethod.PUT, new EntityHandler(EntityCall.Operation.PUT))
            .add("/v0/entity", HttpMethod.DELETE, new EntityHandler(EntityCall.Operation.DELETE))
            .add("/v0/entities", HttpMethod.GET, new RangeHandler())
            .add("/v0/status", HttpMethod.GET, new StatusHandler());

    /** Where {@link #add} finds a path's route to give it another method. */
    private final Map<String, Route> byPath = new HashMap<>();
    /** The same routes, for {@link #find(String, int)}: a handful, so a scan. */
    private Route[] routes = new Route[0];

    private Routes() {
    }

    private Routes add(String path, HttpMethod method, RouteHandler handler) {
        Route route = byPath.get(path);
        byPath.put(path, route == null ? new Route(path, List.of(method), List.of(handler)) : route.with(method, handler));
        routes = byPath.values().toArray(new Route[0]);
        return this;
    }

    /** The route of {@code path}, or {@code null} when there is none. */
    Route find(String path) {
        return find(path, path.length());
    }

    /**
     * The route of the path part of {@code uri}, the first {@code pathEnd} chars, or {@code null} when there is none.
     * Compared in place, so that a request with a query makes no substring of its path.
     */
    Route find(String uri, int pathEnd) {
        for (Route route : routes) {
            String path = route.path;
            if (path.length() == pathEnd && uri.startsWith(path)) {
                return route;
            }
        }
        return null;
    }

    /** One path: its methods in the order they were added, each with its handler. */
    static final class Route {
        private final String path;
        private final HttpMethod[] methods;
        private final RouteHandler[] handlers;
        private final Answer methodNotAllowed;

        private Route(String path, List<HttpMethod> methods, List<RouteHandler> handlers) {
            this.path = path;
            this.methods = methods.toArray(new HttpMethod[0]);
            this.handlers = handlers.toArray(new RouteHandler[0]);
            this.methodNotAllowed = HttpResponses.methodNotAllowed(String.join(", ",
                    methods.stream().map(HttpMethod::name).toList()));
        }

        private Route with(HttpMethod method, RouteHandler handler) {
            List<HttpMethod> m = new ArrayList<>(List.of(methods));
            List<RouteHandler> h = new ArrayList<>(List.of(handlers));
            m.add(method);
            h.add(handler);
            return new Route(path, m, h);
        }

        /** The path as a metrics tag: a template, never the request's own URI. */
        String path() {
            return path;
        }

        /** The handler of {@code method}, or {@code null} when this path does not accept it. */
        RouteHandler handler(HttpMethod method) {
            for (int i = 0; i < methods.length; i++) {
                if (methods[i].equals(method)) {
                    return handlers[i];
                }
            }
            return null;
        }

        /** 405 with {@code Allow} naming this path's methods. */
        Answer methodNotAllowed() {
            return methodNotAllowed;
        }
    }
}
