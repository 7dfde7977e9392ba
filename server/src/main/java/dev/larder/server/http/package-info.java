/**
 * The data port's HTTP side, on the event loops: the socket transport, the per-connection pipeline (connection limit,
 * read and idle timeouts, decoding, aggregation), and the dispatcher that keeps a connection's requests and answers in
 * order and runs each whole request's handler from the route table: (method, path) to a handler that answers on the
 * event loop or hands storage work to the connection's offload lane.
 *
 * <p>May depend on {@code entity} and {@code range} (the work it creates), {@code answer}, {@code context},
 * {@code offload} and {@code config}; never on storage directly: storage calls are made by the work it hands off.
 */
package dev.larder.server.http;
