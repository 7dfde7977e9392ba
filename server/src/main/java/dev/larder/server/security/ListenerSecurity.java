package dev.larder.server.security;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * What one listener asks of its clients: TLS (and with it, perhaps, a client certificate) and a bearer token, each
 * optional. Hands each new connection the handlers its pipeline needs.
 */
public final class ListenerSecurity {

    /** Plain HTTP, no token. */
    public static final ListenerSecurity NONE = new ListenerSecurity(null, null, Set.of(), "larder");

    private final TlsContext tls;
    private final TokenFile tokens;
    private final Set<String> openPaths;
    private final String realm;
    private final RefusalLog refusals;

    private ListenerSecurity(TlsContext tls, TokenFile tokens, Set<String> openPaths, String realm) {
        this.tls = tls;
        this.tokens = tokens;
        this.openPaths = Set.copyOf(openPaths);
        this.realm = realm;
        this.refusals = new RefusalLog(LoggerFactory.getLogger("larder.auth." + realm),
                TimeUnit.SECONDS.toNanos(1));
    }

    /**
     * @param tls       null: plain HTTP
     * @param tokens    null: no token asked for
     * @param openPaths paths served without a token (health checks)
     * @param realm     the {@code WWW-Authenticate} realm, and the log's name
     */
    public static ListenerSecurity of(TlsContext tls, TokenFile tokens, Set<String> openPaths, String realm) {
        return new ListenerSecurity(tls, tokens, openPaths, realm);
    }

    /** The TLS handler for a new connection, when TLS is on. */
    public Optional<SslHandler> tlsHandler(Channel channel) {
        return tls == null ? Optional.empty() : Optional.of(tls.newHandler(channel.alloc()));
    }

    /** The token check for a new connection, when a token is asked for. */
    public Optional<TokenCheck> tokenCheck() {
        return tokens == null ? Optional.empty() : Optional.of(new TokenCheck(tokens, openPaths, refusals, realm));
    }

    /** "https" or "http", for the startup line. */
    public String scheme() {
        return tls == null ? "http" : "https";
    }

    /** Whether a request gets through only with a client certificate or a token. */
    public boolean authenticates() {
        return tokens != null || (tls != null && tls.clientAuth());
    }

    /** " tls=... token=file (n)" for the startup line; empty when there is nothing to say. */
    public String describe() {
        return (tls == null ? "" : " " + tls.describe())
                + (tokens == null ? "" : " bearer-token=required (" + tokens.size() + " accepted)");
    }
}
