package dev.larder.bench;

/**
 * Socket errors as wrk counts them.
 *
 * @param connect connections that could not be opened
 * @param read    connections that failed or closed while a request was outstanding, or answered garbage
 * @param write   writes that failed: kept for wrk's layout, always 0 here, because Netty reports a failed write as
 *                an exception on the channel like any socket error, and those are counted under {@code read}
 * @param timeout requests unanswered after {@code --timeout} (the connection is dropped and reopened)
 */
public record SocketErrors(long connect, long read, long write, long timeout) {

    public static final SocketErrors NONE = new SocketErrors(0, 0, 0, 0);

    public SocketErrors plus(SocketErrors o) {
        return new SocketErrors(connect + o.connect, read + o.read, write + o.write, timeout + o.timeout);
    }

    public long total() {
        return connect + read + write + timeout;
    }
}
