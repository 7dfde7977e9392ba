/**
 * Metrics, at the edge: the Micrometer {@link dev.larder.server.config.ServerObserver}, the binders that read a
 * running server and store at scrape time, and the coarse clock that keeps recording cheap. The registry is passed in
 * by the caller (never the global one).
 *
 * <p>May depend on the front door ({@code LarderServer}), {@code config} and the storage module's statistics; the
 * request path never depends on it.
 */
package dev.larder.server.metrics;
