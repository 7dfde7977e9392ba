package dev.larder.server.http;

import dev.larder.server.answer.Answer;
import dev.larder.server.answer.HttpResponses;
import dev.larder.server.answer.Responder;
import dev.larder.server.context.ServerContext;
import dev.larder.server.offload.WorkerTask;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * What a {@link RouteHandler} may do with the request it serves: answer it on the event loop, or hand storage work to
 * the workers (the event loop's WorkerChoice places GETs, PUTs and DELETEs; a range stream keeps the connection's
 * worker). The connection ({@link RequestDispatcher}) implements it; every call is on its event loop.
 */
interface Exchange extends Responder {

    /** The server this connection belongs to. */
    ServerContext server();

    /** Answers the request now, on the event loop. */
    void answer(Answer answer);

    /** Hands {@code task} to the workers through the connection's lane; the task answers the request. */
    void submit(WorkerTask task);

    /** Streams the keys {@code start <= key < end} ({@code end == null}: to the last key) as the answer. */
    void streamRange(byte[] start, byte[] end);

    /**
     * The decoded query parameter; {@code new byte[0]} when absent (callers answer 400 for both), {@code null} when
     * its encoding was malformed and a 400 has already been answered.
     */
    default byte[] param(String uri, String name) {
        try {
            byte[] value = QueryParams.bytes(uri, name);
            return value == null ? new byte[0] : value;
        } catch (QueryParams.MalformedQueryException e) {
            answer(HttpResponses.text(HttpResponseStatus.BAD_REQUEST, "bad " + name + " parameter: "
                    + e.getMessage()));
            return null;
        }
    }
}
