package dev.larder.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.Optional;

/**
 * Whether a listener could bind an address now, asked before the store opens and the JIT warm-up runs: a server
 * whose port was taken used to find out only when the listener opened, after the default warm-up's 20-30 s, and
 * then exit. The listener's own bind still decides (another process may take the port in between); this only lets
 * the common mistake fail in a second.
 */
final class PortProbe {

    private PortProbe() {
    }

    /**
     * Binds {@code host:port} and lets it go; empty when that worked (or {@code port} is 0, any free port), else
     * the reason, as the operating system gave it. With {@code SO_REUSEADDR}, as the listeners bind, so a port
     * whose last connections are still in TIME_WAIT counts as free.
     */
    static Optional<String> whyNotBindable(String host, int port) {
        if (port == 0) {
            return Optional.empty();
        }
        try (ServerSocketChannel probe = ServerSocketChannel.open()) {
            probe.socket().setReuseAddress(true);
            probe.bind(new InetSocketAddress(host, port));
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.of(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
    }
}
