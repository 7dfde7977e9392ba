/**
 * The data port's HTTP side, on the event loops: the socket transport, the per-connection pipeline (connection limit,
 * read and idle timeouts, decoding, aggregation), and the dispatcher that routes each whole request, keeps a
 * connection's answers in order and hands storage work to the connection's offload lane.
 *
 * <p>May depend on {@code entity} and {@code range} (the work it creates), {@code answer}, {@code context},
 * {@code offload} and {@code config}; never on storage directly: storage calls are made by the work it hands off.
 */
package dev.larder.server.http;
