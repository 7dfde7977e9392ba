package dev.larder.server.config;

/** The socket transport the event loops use. */
public enum TransportKind {
    /** The best available of io_uring, epoll, nio. */
    AUTO("auto"),
    IO_URING("io_uring"),
    EPOLL("epoll"),
    NIO("nio");

    private final String flag;

    TransportKind(String flag) {
        this.flag = flag;
    }

    public String flag() {
        return flag;
    }
}
