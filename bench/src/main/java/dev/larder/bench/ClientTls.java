package dev.larder.bench;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.net.URI;
import javax.net.ssl.SSLException;

/**
 * The load generator's side of TLS for {@code https://} targets. Like wrk, it encrypts but does not check the
 * server's certificate: it measures a server its user chose, and a test CA should not stop a benchmark. BoringSSL
 * where it loads, as the server uses, so the cost measured is the engine's and not the JDK's.
 */
final class ClientTls {

    private ClientTls() {
    }

    static boolean https(URI target) {
        return "https".equalsIgnoreCase(target.getScheme());
    }

    static SslContext context() {
        try {
            return SslContextBuilder.forClient()
                    .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .trustManager(InsecureTrustManagerFactory.INSTANCE)
                    .build();
        } catch (SSLException e) {
            throw new BenchException("cannot make a TLS client context: " + e.getMessage(), e);
        }
    }
}
