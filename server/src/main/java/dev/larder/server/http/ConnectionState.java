package dev.larder.server.http;

/**
 * Per-connection facts shared by {@link ConnectionTimeouts} (which sees raw bytes) and {@link RequestDispatcher}
 * (which sees whole requests). Both run on the connection's event loop, so plain fields suffice.
 */
final class ConnectionState {

    /** When the first byte of a request not yet fully received arrived; 0 when none is in progress. */
    long partialSince;
    /** Last time bytes were read or a response was completed. */
    long lastActivity = System.nanoTime();
    /** Whether a request is being served or waits in this connection's pipeline. */
    boolean busy;

    void bytesRead(long now) {
        lastActivity = now;
        if (partialSince == 0) {
            partialSince = now;
        }
    }

    void requestReceived() {
        partialSince = 0;
    }

    void responseCompleted(long now) {
        lastActivity = now;
    }
}
