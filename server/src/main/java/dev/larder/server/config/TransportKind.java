package dev.larder.server.config;

import dev.larder.storage.FlagValue;

/** The socket transport the event loops use. */
public enum TransportKind implements FlagValue {
    /** The best available of io_uring, epoll, nio. */
    AUTO("auto"),
    IO_URING("io_uring"),
    EPOLL("epoll"),
    NIO("nio");

    private final String flag;

    TransportKind(String flag) {
        this.flag = flag;
    }

    @Override
    public String flag() {
        return flag;
    }

    public static TransportKind fromFlag(String value) {
        return FlagValue.parse(TransportKind.class, value);
    }
}
