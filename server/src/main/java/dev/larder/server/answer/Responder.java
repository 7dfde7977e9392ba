package dev.larder.server.answer;

/** Where a storage call's answer goes: the connection that asked, which writes it in request order. */
public interface Responder {

    /**
     * Hands a finished answer to the connection; callable from any thread. {@code serviceStart} is when a worker
     * began the request (0 when it never did).
     */
    void respond(Answer response, long serviceStart);
}
