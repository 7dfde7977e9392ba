package dev.larder.server;

import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.storage.RocksDbStore;
import dev.larder.storage.Store;
import dev.larder.storage.StoreOptions;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/** A real server on a free loopback port over a real RocksDB (optionally wrapped), closed in order. */
final class TestServer implements AutoCloseable {

    final RocksDbStore rocks;
    final Store store;
    final LarderServer server;

    TestServer(Path dir, UnaryOperator<ServerOptions.Builder> options) {
        this(dir, options, s -> s, ServerObserver.NOOP);
    }

    TestServer(Path dir, UnaryOperator<ServerOptions.Builder> options, UnaryOperator<Store> wrap,
               ServerObserver observer) {
        rocks = RocksDbStore.open(new StoreOptions(dir.resolve("db"), 8 << 20, 4 << 20, false, true, true));
        store = wrap.apply(rocks);
        server = LarderServer.start(options.apply(ServerOptions.builder(2).port(0)).build(), store, observer);
    }

    InetSocketAddress address() {
        return server.localAddress();
    }

    String url(String target) {
        return "http://127.0.0.1:" + address().getPort() + target;
    }

    RawHttp connect() throws java.io.IOException {
        return new RawHttp(address());
    }

    @Override
    public void close() {
        server.close();
        rocks.close();
    }
}
