package dev.larder.server.security;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The files of {@link SecurityOptions}, loaded and checked: one TLS context shared by both ports, a token list for
 * each, and what every listener asks of its clients. Loading fails at start, with the reason in one line, rather
 * than at the first connection.
 *
 * @param data      the data port's requirements
 * @param admin     the admin port's requirements
 * @param reloadable what {@link SecurityReloader} should watch
 */
public record ServerSecurity(ListenerSecurity data, ListenerSecurity admin, List<Reloadable> reloadable) {

    /** Served without a token on the data port: "the process answers", which load balancers ask without one. */
    public static final Set<String> DATA_OPEN_PATHS = Set.of("/v0/status");
    /** Served without a token on the admin port: liveness and readiness probes. */
    public static final Set<String> ADMIN_OPEN_PATHS = Set.of("/health/live", "/health/ready");

    public ServerSecurity {
        reloadable = List.copyOf(reloadable);
    }

    /**
     * Reads and checks every file {@code options} names.
     *
     * @throws IllegalArgumentException "flag: reason", one line
     */
    public static ServerSecurity load(SecurityOptions options) {
        List<Reloadable> reloadable = new ArrayList<>();
        TlsContext tls = null;
        if (options.tls()) {
            try {
                tls = TlsContext.load(options.certFile(), options.keyFile(), options.clientCaFile());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tls-cert/--tls-key" + (options.clientCaFile() == null ? ""
                        : "/--tls-client-ca") + ": " + e.getMessage());
            }
            reloadable.add(tls);
        }
        TokenFile dataTokens = tokens("auth-token-file", options.dataTokenFile(), reloadable);
        TokenFile adminTokens = tokens("admin-token-file", options.adminTokenFile(), reloadable);
        return new ServerSecurity(
                ListenerSecurity.of(tls, dataTokens, DATA_OPEN_PATHS, "larder"),
                ListenerSecurity.of(tls, adminTokens, ADMIN_OPEN_PATHS, "larder-admin"),
                reloadable);
    }

    private static TokenFile tokens(String flag, java.nio.file.Path file, List<Reloadable> reloadable) {
        if (file == null) {
            return null;
        }
        try {
            TokenFile tokens = TokenFile.load(file);
            reloadable.add(tokens);
            return tokens;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + ": " + e.getMessage());
        }
    }
}
