/**
 * How the server's own threads are scheduled: the EEVDF time slice the event loops and the workers set on
 * themselves ({@code --foreground-slice}). Depends on Netty's thread factory and JNA only.
 */
package dev.larder.server.threads;
