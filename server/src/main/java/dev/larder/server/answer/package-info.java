/**
 * Whole answers as wire bytes: {@link dev.larder.server.answer.Answer} (status line and fixed headers encoded once),
 * every answer the data port sends ({@link dev.larder.server.answer.HttpResponses}), and
 * {@link dev.larder.server.answer.Responder}, through which work running anywhere hands its answer back to the
 * connection.
 *
 * <p>May depend on {@code config} and Netty's buffers and HTTP status codes only.
 */
package dev.larder.server.answer;
