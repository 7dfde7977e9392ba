package dev.larder.server.admin;

import java.util.Objects;

/**
 * Where the admin listener binds.
 *
 * @param host address to bind (the CLI uses the data port's {@code --host})
 * @param port admin port; 0 picks a free one (the CLI treats {@code --admin-port 0} as "no admin listener" and never
 *             gets here)
 */
public record AdminOptions(String host, int port) {

    public AdminOptions {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("admin-port: " + port + " (expected: 0..65535)");
        }
    }
}
