/**
 * What every connection and every storage call of one server share: options, store, offload, observer, the shutdown
 * flag and the rate-limited storage-error log, in one {@link dev.larder.server.context.ServerContext} per server
 * (nothing static).
 *
 * <p>May depend on {@code offload}, {@code config} and the storage module's {@code Store} interface.
 */
package dev.larder.server.context;
