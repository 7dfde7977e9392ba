package dev.larder.bench;

/**
 * An honesty check that failed: the numbers of the run are not what they seem.
 *
 * @param kind    which check
 * @param message what happened and what to do, for humans
 */
public record Warning(Kind kind, String message) {

    /** The checks. */
    public enum Kind {
        /** Fewer than 99% of the scheduled requests were answered in the window. */
        RATE_NOT_ACHIEVED,
        /** {@code connections < rate × p99}: with one request in flight per connection the schedule slips. */
        TOO_FEW_CONNECTIONS,
        /** The window opened with a backlog of requests due during the warm-up: the warm-up was too short. */
        WARMUP_BACKLOG,
        /** The generator itself sent requests late (its own lag histogram). */
        GENERATOR_LAG,
        /** Requests failed at the socket level (connect, read, timeout): they are missing from the latencies. */
        SOCKET_ERRORS,
        /** Closed-loop run ({@code --rate 0}): latencies are from the actual send, not corrected. */
        CLOSED_LOOP,
        /** No response arrived in the measured window. */
        NO_RESPONSES,
        /** The virtual machine's host took a noticeable share of its CPU time during the window (steal time). */
        HOST_STEAL,
        /** The server used nearly all the CPUs it may run on during a fixed-rate window: it had nothing to spare. */
        SERVER_CPU_FULL,
        /** The generator itself used nearly all the CPUs it may run on during a fixed-rate window. */
        GENERATOR_CPU_FULL,
        /** The machine answered a reference server (nginx) at a different speed between two points of a run. */
        MACHINE_SPEED_CHANGED
    }
}
