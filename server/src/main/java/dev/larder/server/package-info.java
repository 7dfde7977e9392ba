/**
 * The server's front door: {@link dev.larder.server.LarderServer} binds the data listener and shuts it down in
 * order; {@link dev.larder.server.PipelineWarmup} sends every kind of request through a started one so the JIT has
 * compiled each path before real traffic arrives.
 *
 * <p>May depend on every package of the server except {@code admin} and {@code metrics}, which sit beside it at the
 * edge; nothing inside the server depends on this package.
 */
package dev.larder.server;
