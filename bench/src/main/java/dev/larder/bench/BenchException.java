package dev.larder.bench;

/** A run could not be done (no connection, bad target, I/O on the output files); the message is for the user. */
public final class BenchException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BenchException(String message) {
        super(message);
    }

    public BenchException(String message, Throwable cause) {
        super(message, cause);
    }
}
