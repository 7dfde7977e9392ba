/**
 * What a caller hands the server, and the words both sides use: the immutable, validated
 * {@link dev.larder.server.config.ServerOptions} (built by the CLI from flags), the
 * {@link dev.larder.server.config.ServerObserver} the request path reports to, and the transport kinds, rejection
 * modes and reject reasons those two name.
 *
 * <p>Depends on nothing else in Larder and on no Netty type: it is the vocabulary every other package shares.
 */
package dev.larder.server.config;
