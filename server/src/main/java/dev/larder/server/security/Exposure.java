package dev.larder.server.security;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * Whether the data port lets anyone who can reach it read and overwrite every key: it listens beyond loopback and
 * asks neither a client certificate nor a token. The server still starts (a private network may be the point), but
 * says so loudly once in the log, on {@code /health/ready}'s body and as the gauge {@code larder.security.exposed},
 * unless {@code --insecure-bind-ok} says it is meant.
 */
public final class Exposure implements MeterBinder {

    private final Optional<String> warning;

    private Exposure(Optional<String> warning) {
        this.warning = warning;
    }

    /**
     * @param host        the data port's {@code --host}
     * @param security    what the data port asks of clients
     * @param acknowledged {@code --insecure-bind-ok}
     */
    public static Exposure of(String host, ListenerSecurity security, boolean acknowledged) {
        if (acknowledged || security.authenticates() || loopback(host)) {
            return new Exposure(Optional.empty());
        }
        return new Exposure(Optional.of("the data port listens on " + host + " with neither client certificates "
                + "(--tls-client-ca) nor a token (--auth-token-file): anyone who reaches it can read and overwrite "
                + "every key (--insecure-bind-ok silences this)"));
    }

    private static boolean loopback(String host) {
        try {
            InetAddress[] addresses = InetAddress.getAllByName(host);
            for (InetAddress address : addresses) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return addresses.length > 0;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The warning, when the data port is open to anyone. */
    public Optional<String> warning() {
        return warning;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("larder.security.exposed", () -> warning.isPresent() ? 1 : 0)
                .description("1 when the data port listens beyond loopback with no client authentication")
                .register(registry);
    }
}
