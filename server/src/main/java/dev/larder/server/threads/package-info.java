/**
 * How the server's own threads are scheduled: the EEVDF time slice the event loops and the workers set on
 * themselves ({@code --foreground-slice}) or SCHED_FIFO in its place ({@code --foreground-policy fifo}), the
 * thread that gives the scheduler a decision point between the kernel's ticks while the store's background works
 * ({@code --reschedule-interval}), and a thread's nice value by its id ({@code --jit-nice} sets the JIT compilers').
 * Depends on Netty's thread factory and JNA only.
 */
package dev.larder.server.threads;
