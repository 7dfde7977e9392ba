package dev.larder.server.security;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The server side of TLS: a certificate chain and its key (PEM), optionally a CA bundle that client certificates
 * must chain to (mTLS), TLS 1.2 and 1.3 only. Each new connection gets an {@link SslHandler} from the context loaded
 * last, so {@link #reload()} changes what new connections see while open ones keep the session they negotiated.
 *
 * <p>Uses BoringSSL (netty-tcnative) where it loads, else the JDK's engine; {@link #describe()} says which and why.
 */
public final class TlsContext implements Reloadable {

    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final Path certFile;
    private final Path keyFile;
    private final Path clientCaFile;
    private final SslProvider provider;
    private volatile SslContext current;

    private TlsContext(Path certFile, Path keyFile, Path clientCaFile, SslProvider provider) {
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.clientCaFile = clientCaFile;
        this.provider = provider;
        this.current = build();
    }

    /**
     * Loads the files and proves they work by a handshake in memory.
     *
     * @param clientCaFile null: no client certificate asked for
     * @throws IllegalArgumentException with a one-line reason: a file unreadable or not PEM, a key that does not
     *                                  belong to the certificate, a CA bundle without a certificate
     */
    public static TlsContext load(Path certFile, Path keyFile, Path clientCaFile) {
        return new TlsContext(certFile, keyFile, clientCaFile,
                OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK);
    }

    /** A handler for one new connection, from the certificates loaded last. */
    public SslHandler newHandler(ByteBufAllocator alloc) {
        return current.newHandler(alloc);
    }

    /** Whether clients must present a certificate from the CA bundle. */
    public boolean clientAuth() {
        return clientCaFile != null;
    }

    /** "tls=openssl (BoringSSL ...) client-auth=required" or why the JDK's engine is used. */
    public String describe() {
        String engine = provider == SslProvider.OPENSSL
                ? "openssl (" + OpenSsl.versionString() + ")"
                : "jdk (netty-tcnative not loaded: " + unavailability() + ")";
        return "tls=" + engine + " protocols=TLSv1.2,TLSv1.3 client-auth="
                + (clientAuth() ? "required (CA " + clientCaFile + ")" : "none");
    }

    private static String unavailability() {
        Throwable cause = OpenSsl.unavailabilityCause();
        return cause == null ? "unknown" : cause.toString();
    }

    @Override
    public List<Path> files() {
        List<Path> files = new ArrayList<>(List.of(certFile, keyFile));
        if (clientCaFile != null) {
            files.add(clientCaFile);
        }
        return files;
    }

    @Override
    public void reload() {
        current = build();
    }

    private SslContext build() {
        readable("certificate", certFile);
        readable("key", keyFile);
        if (clientCaFile != null) {
            readable("client CA", clientCaFile);
        }
        SslContext context = context(clientCaFile);
        // The probe context asks no client certificate, so the in-memory handshake can complete without one.
        handshake(clientCaFile == null ? context : context(null));
        return context;
    }

    private SslContext context(Path trust) {
        SslContextBuilder builder;
        try {
            builder = SslContextBuilder.forServer(certFile.toFile(), keyFile.toFile());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(certFile + " / " + keyFile + ": not a PEM certificate and key ("
                    + rootMessage(e) + ")");
        }
        builder.sslProvider(provider).protocols(PROTOCOLS);
        if (trust != null) {
            try {
                builder.trustManager(trust.toFile()).clientAuth(ClientAuth.REQUIRE);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(trust + ": not a PEM CA bundle (" + rootMessage(e) + ")");
            }
        }
        try {
            return builder.build();
        } catch (Exception e) {
            throw new IllegalArgumentException(certFile + " / " + keyFile + (trust == null ? "" : " / " + trust)
                    + ": cannot make a TLS context (" + rootMessage(e) + ")");
        }
    }

    /**
     * Runs a full handshake between this context and a client that trusts anything: it fails when the key does not
     * belong to the certificate (the client checks the server's signature against it), which loading alone does
     * not notice with every engine.
     */
    private void handshake(SslContext server) {
        EmbeddedChannel serverSide = null;
        EmbeddedChannel clientSide = null;
        try {
            SslContext client = SslContextBuilder.forClient().sslProvider(provider).protocols(PROTOCOLS)
                    .trustManager(InsecureTrustManagerFactory.INSTANCE).build();
            serverSide = new EmbeddedChannel(server.newHandler(ByteBufAllocator.DEFAULT));
            clientSide = new EmbeddedChannel(client.newHandler(ByteBufAllocator.DEFAULT));
            SslHandler clientHandler = clientSide.pipeline().get(SslHandler.class);
            for (int round = 0; round < 20 && !clientHandler.handshakeFuture().isDone(); round++) {
                shuttle(clientSide, serverSide);
                shuttle(serverSide, clientSide);
            }
            if (!clientHandler.handshakeFuture().isSuccess()) {
                Throwable cause = clientHandler.handshakeFuture().cause();
                throw new IllegalArgumentException(certFile + " / " + keyFile + ": a test handshake failed ("
                        + (cause == null ? "did not finish" : rootMessage(cause))
                        + "; does the key belong to the certificate?)");
            }
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalArgumentException(certFile + " / " + keyFile + ": a test handshake failed ("
                    + rootMessage(e) + "; does the key belong to the certificate?)");
        } finally {
            if (clientSide != null) {
                clientSide.finishAndReleaseAll();
            }
            if (serverSide != null) {
                serverSide.finishAndReleaseAll();
            }
        }
    }

    private static void shuttle(EmbeddedChannel from, EmbeddedChannel to) {
        Object out;
        while ((out = from.readOutbound()) != null) {
            to.writeInbound(out);
        }
    }

    private static void readable(String what, Path file) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(file + ": cannot read the " + what + " file");
        }
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return message.replace('\n', ' ');
    }
}
