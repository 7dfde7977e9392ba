/**
 * {@code GET /v0/entities}: a key range streamed in batches from a storage cursor, one batch in memory per connection,
 * the next read only while the client keeps reading.
 *
 * <p>May depend on {@code answer}, {@code context}, {@code offload}, {@code config} and the storage module; not on
 * {@code http}: it streams through {@link dev.larder.server.range.RangeSink}, which the connection implements.
 */
package dev.larder.server.range;
