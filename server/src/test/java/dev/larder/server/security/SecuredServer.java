package dev.larder.server.security;

import dev.larder.server.LarderServer;
import dev.larder.server.config.ServerObserver;
import dev.larder.server.config.ServerOptions;
import dev.larder.storage.RocksDbStore;
import dev.larder.storage.StoreOptions;
import java.nio.file.Path;

/** A real data listener on a free loopback port over a real RocksDB, asking clients for what {@code security} says. */
final class SecuredServer implements AutoCloseable {

    final RocksDbStore store;
    final LarderServer server;

    SecuredServer(Path dir, ListenerSecurity security) {
        store = RocksDbStore.open(new StoreOptions(dir.resolve("db"), 8 << 20, 4 << 20, false, true, true));
        server = LarderServer.start(ServerOptions.builder(2).port(0).build(), security, store, ServerObserver.NOOP);
    }

    int port() {
        return server.localAddress().getPort();
    }

    String url(String scheme, String target) {
        return scheme + "://127.0.0.1:" + port() + target;
    }

    @Override
    public void close() {
        server.close();
        store.close();
    }
}
