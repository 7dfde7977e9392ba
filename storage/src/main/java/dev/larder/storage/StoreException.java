package dev.larder.storage;

/** A failure of the storage engine, with the operation that hit it. */
public final class StoreException extends RuntimeException {

    private final String operation;
    private final boolean noSpace;

    public StoreException(String operation, String reason, Throwable cause, boolean noSpace) {
        super(operation + ": " + reason, cause);
        this.operation = operation;
        this.noSpace = noSpace;
    }

    /** The store operation that failed: {@code get}, {@code put}, {@code delete}, {@code range}, {@code open}, ... */
    public String operation() {
        return operation;
    }

    /** Whether the engine reported that the disk is full (the caller may answer 507 rather than 500). */
    public boolean noSpace() {
        return noSpace;
    }
}
