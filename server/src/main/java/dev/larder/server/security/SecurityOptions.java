package dev.larder.server.security;

import java.time.Duration;
import java.util.Objects;

/**
 * What the listeners ask of their clients, as the CLI's flags said. Every path may be null (not configured).
 *
 * @param certFile        PEM certificate chain (leaf first) served on both ports; with {@code keyFile}, TLS is on
 * @param keyFile         PEM private key of the leaf certificate (PKCS#8, or PKCS#1 RSA / SEC1 EC)
 * @param clientCaFile    PEM CA bundle: clients must present a certificate chaining to it (mTLS), on both ports
 * @param dataTokenFile   bearer tokens the data port accepts, one per line
 * @param adminTokenFile  bearer tokens the admin port accepts (its health paths stay open)
 * @param insecureBindOk  the data port is meant to be open to anyone who reaches it: no warning
 * @param reloadInterval  how often the files are checked for changes
 */
public record SecurityOptions(
        java.nio.file.Path certFile,
        java.nio.file.Path keyFile,
        java.nio.file.Path clientCaFile,
        java.nio.file.Path dataTokenFile,
        java.nio.file.Path adminTokenFile,
        boolean insecureBindOk,
        Duration reloadInterval) {

    /** Nothing asked of clients. */
    public static final SecurityOptions NONE =
            new SecurityOptions(null, null, null, null, null, false, Duration.ofSeconds(1));

    public SecurityOptions {
        Objects.requireNonNull(reloadInterval, "reloadInterval");
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException(certFile == null
                    ? "tls-key: given without --tls-cert (expected: both or neither)"
                    : "tls-cert: given without --tls-key (expected: both or neither)");
        }
        if (clientCaFile != null && certFile == null) {
            throw new IllegalArgumentException("tls-client-ca: given without --tls-cert and --tls-key (expected: "
                    + "client certificates are asked for only over TLS)");
        }
        if (reloadInterval.isNegative() || reloadInterval.isZero()) {
            throw new IllegalArgumentException("reload-interval: " + reloadInterval + " (expected: > 0)");
        }
    }

    /** Whether TLS is on. */
    public boolean tls() {
        return certFile != null;
    }
}
