/**
 * The admin listener, at the edge: its own port and event loop serving {@code /metrics}, {@code /health/live},
 * {@code /health/ready} and {@code /debug/profile}, so it answers while the data port is saturated.
 *
 * <p>May depend on {@code http} (for the socket transport) and {@code config}; the request path never depends on it.
 */
package dev.larder.server.admin;
