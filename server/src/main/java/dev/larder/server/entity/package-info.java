/**
 * {@code GET}, {@code PUT} and {@code DELETE} of one key as worker tasks: each runs alone or, when consecutive in a
 * worker's run, as one multi-key lookup or one write batch, and answers its connection exactly once.
 *
 * <p>May depend on {@code answer}, {@code context}, {@code offload}, {@code config} and the storage module; not on
 * {@code http}: it answers through {@link dev.larder.server.answer.Responder}.
 */
package dev.larder.server.entity;
