package dev.larder.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS and mTLS on the data port with real clients: the JDK's HTTP client and TLS socket, curl and openssl, against
 * certificates from a CA made for the test.
 */
class TlsTest {

    @TempDir
    Path dir;

    private TestPki pki;
    private TestPki.Issued server;

    @BeforeEach
    void pki() throws Exception {
        pki = TestPki.create(dir.resolve("pki"), "larder");
        server = pki.server("server");
    }

    private ListenerSecurity tls(Path clientCa) {
        return ListenerSecurity.of(TlsContext.load(server.cert(), server.key(), clientCa), null, Set.of(), "larder");
    }

    @Test
    void jdkClientTrustingTheCaStoresAndReadsOverTls() throws Exception {
        try (SecuredServer larder = new SecuredServer(dir, tls(null))) {
            assertTrue(larder.server.describe().contains("listening on https://"), larder.server.describe());
            HttpClient https = HttpClient.newBuilder().sslContext(trusting(pki.caFile())).build();
            String entity = larder.url("https", "/v0/entity?id=tls");
            assertEquals(201, https.send(HttpRequest.newBuilder(URI.create(entity))
                    .PUT(HttpRequest.BodyPublishers.ofString("secret")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
            HttpResponse<String> read = https.send(HttpRequest.newBuilder(URI.create(entity)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("secret", read.body());

            // A client that does not trust this CA refuses the server.
            HttpClient stranger = HttpClient.newBuilder()
                    .sslContext(trusting(TestPki.create(dir.resolve("other"), "other").caFile())).build();
            assertThrows(javax.net.ssl.SSLHandshakeException.class, () -> stranger.send(
                    HttpRequest.newBuilder(URI.create(entity)).build(), HttpResponse.BodyHandlers.discarding()));
        }
    }

    @Test
    void curlSpeaksTls13And12AndPlainHttpGetsNoAnswer() throws Exception {
        try (SecuredServer larder = new SecuredServer(dir, tls(null))) {
            String status = larder.url("https", "/v0/status");
            Result v13 = run("curl", "-sS", "--cacert", pki.caFile().toString(), "--tlsv1.3", "-w", " %{http_code}",
                    status);
            assertEquals(0, v13.status(), v13.output());
            assertTrue(v13.output().endsWith(" 200"), v13.output());
            Result v12 = run("curl", "-sS", "--cacert", pki.caFile().toString(), "--tls-max", "1.2",
                    "-w", " %{http_code}", status);
            assertTrue(v12.output().endsWith(" 200"), v12.output());
            Result plain = run("curl", "-sS", "--max-time", "5", "-w", " %{http_code}",
                    larder.url("http", "/v0/status"));
            assertNotEquals(0, plain.status(), "plain HTTP is not answered over the TLS port: " + plain.output());
        }
    }

    @Test
    void tls11AndOlderAreRefusedByTheServer() throws Exception {
        try (SecuredServer larder = new SecuredServer(dir, tls(null))) {
            String connect = "127.0.0.1:" + larder.port();
            // The client is told it may use TLS 1.1 (security level 0 lifts OpenSSL 3's own floor): the server refuses.
            Result v11 = run("openssl", "s_client", "-connect", connect, "-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0",
                    "-CAfile", pki.caFile().toString());
            assertNotEquals(0, v11.status(), v11.output());
            assertTrue(v11.output().contains("alert protocol version") || v11.output().contains("unsupported protocol")
                    || v11.output().contains("wrong version number"), v11.output());
            Result v12 = run("openssl", "s_client", "-connect", connect, "-tls1_2", "-CAfile",
                    pki.caFile().toString());
            assertTrue(v12.output().contains("Protocol  : TLSv1.2") || v12.output().contains("TLSv1.2, Cipher"),
                    "the same client gets TLS 1.2: " + v12.output());
        }
    }

    @Test
    void mutualTlsLetsInOnlyCurrentCertificatesOfTheCa() throws Exception {
        TestPki.Issued good = pki.client("good-client");
        Instant now = Instant.now();
        TestPki.Issued expired = pki.client("expired-client", now.minus(Duration.ofDays(30)),
                now.minus(Duration.ofDays(1)));
        TestPki.Issued notYet = pki.client("future-client", now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(30)));
        TestPki.Issued foreign = TestPki.create(dir.resolve("rogue"), "rogue").client("rogue-client");
        try (SecuredServer larder = new SecuredServer(dir, tls(pki.caFile()))) {
            String status = larder.url("https", "/v0/status");
            assertEquals(" 200", curl(status, good).output().substring(curl(status, good).output().length() - 4));
            for (TestPki.Issued refused : List.of(expired, notYet, foreign)) {
                Result r = curl(status, refused);
                assertNotEquals(0, r.status(), refused.cert() + " must be refused: " + r.output());
                assertTrue(r.output().endsWith(" 000"), r.output());
            }
            Result anonymous = run("curl", "-sS", "--cacert", pki.caFile().toString(), "-w", " %{http_code}",
                    status);
            assertNotEquals(0, anonymous.status(), "no client certificate: " + anonymous.output());
            assertTrue(anonymous.output().endsWith(" 000"), anonymous.output());

            // The JDK client without a key manager is refused too.
            HttpClient noCert = HttpClient.newBuilder().sslContext(trusting(pki.caFile())).build();
            assertThrows(java.io.IOException.class, () -> noCert.send(HttpRequest.newBuilder(URI.create(status))
                    .build(), HttpResponse.BodyHandlers.discarding()));
        }
    }

    @Test
    void reloadServesTheNewCertificateToNewConnectionsAndKeepsOpenOnes() throws Exception {
        TlsContext context = TlsContext.load(server.cert(), server.key(), null);
        try (SecuredServer larder = new SecuredServer(dir,
                ListenerSecurity.of(context, null, Set.of(), "larder"));
             SecurityReloader reloader = SecurityReloader.start(List.of(context), Duration.ofMillis(50))) {
            SSLSocket open = (SSLSocket) trusting(pki.caFile()).getSocketFactory()
                    .createSocket("127.0.0.1", larder.port());
            open.setSoTimeout(5000);
            assertTrue(statusOver(open).startsWith("HTTP/1.1 200"));
            X509Certificate before = (X509Certificate) open.getSession().getPeerCertificates()[0];

            // Rotate to a certificate from a new CA, written the way an operator would: new files moved in place.
            TestPki next = TestPki.create(dir.resolve("next"), "next");
            TestPki.Issued rotated = next.server("server2");
            Files.move(rotated.key(), server.key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.move(rotated.cert(), server.cert(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Result fresh = null;
            while (System.nanoTime() < deadline) {
                fresh = run("curl", "-sS", "--cacert", next.caFile().toString(), "-w", " %{http_code}",
                        larder.url("https", "/v0/status"));
                if (fresh.status() == 0) {
                    break;
                }
                Thread.sleep(50);
            }
            assertEquals(0, fresh.status(), "a new connection gets the new certificate: " + fresh.output());
            Result old = run("curl", "-sS", "--cacert", pki.caFile().toString(), "-w", " %{http_code}",
                    larder.url("https", "/v0/status"));
            assertNotEquals(0, old.status(), "and no longer the old one: " + old.output());

            // The connection opened before the rotation still works, on its old session.
            assertTrue(statusOver(open).startsWith("HTTP/1.1 200"));
            assertEquals(before, open.getSession().getPeerCertificates()[0]);
            open.close();

            // A broken file is not loaded: the listener keeps serving the last good certificate.
            Files.writeString(server.cert(), "-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n");
            Thread.sleep(300);
            Result still = run("curl", "-sS", "--cacert", next.caFile().toString(), "-w", " %{http_code}",
                    larder.url("https", "/v0/status"));
            assertEquals(0, still.status(), still.output());
        }
    }

    @Test
    void badFilesAreRefusedAtLoadWithOneLine() throws Exception {
        Path garbage = Files.writeString(dir.resolve("garbage.pem"),
                "-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n");
        IllegalArgumentException malformed = assertThrows(IllegalArgumentException.class,
                () -> TlsContext.load(garbage, server.key(), null));
        assertTrue(malformed.getMessage().startsWith(garbage.toString()), malformed.getMessage());
        assertTrue(!malformed.getMessage().contains("\n"), "one line");

        TestPki.Issued other = pki.server("other");
        IllegalArgumentException mismatch = assertThrows(IllegalArgumentException.class,
                () -> TlsContext.load(server.cert(), other.key(), null));
        assertTrue(mismatch.getMessage().contains("does the key belong to the certificate")
                || mismatch.getMessage().contains("mismatch"), mismatch.getMessage());

        IllegalArgumentException keyAsCert = assertThrows(IllegalArgumentException.class,
                () -> TlsContext.load(server.key(), server.key(), null));
        assertTrue(keyAsCert.getMessage().contains("not a PEM certificate"), keyAsCert.getMessage());

        Path missing = dir.resolve("missing.pem");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TlsContext.load(server.cert(), missing, null))
                .getMessage().contains("cannot read the key file"));
        IllegalArgumentException badCa = assertThrows(IllegalArgumentException.class,
                () -> TlsContext.load(server.cert(), server.key(), garbage));
        assertTrue(badCa.getMessage().contains(garbage.toString()), badCa.getMessage());
    }

    @Test
    void theEngineIsBoringSslHere() {
        // This machine is linux-x86_64, where netty-tcnative's classifier jar loads; elsewhere the JDK engine is used.
        String described = TlsContext.load(server.cert(), server.key(), null).describe();
        assertTrue(described.startsWith("tls=openssl"), described);
    }

    private record Result(int status, String output) {
    }

    private Result curl(String url, TestPki.Issued client) throws Exception {
        return run("curl", "-sS", "--cacert", pki.caFile().toString(), "--cert", client.cert().toString(),
                "--key", client.key().toString(), "-w", " %{http_code}", url);
    }

    private static Result run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        return new Result(process.exitValue(), output);
    }

    private static String statusOver(SSLSocket socket) throws Exception {
        socket.getOutputStream().write("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            head.append((char) in.read());
        }
        int length = Integer.parseInt(head.toString().toLowerCase().split("content-length: ")[1].split("\r\n")[0]);
        in.readNBytes(length);
        return head.toString();
    }

    /** An SSL context trusting only the CA in {@code caFile}. */
    static SSLContext trusting(Path caFile) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        List<X509Certificate> certs = new ArrayList<>();
        try (InputStream in = new ByteArrayInputStream(Files.readAllBytes(caFile))) {
            for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                certs.add((X509Certificate) cert);
            }
        }
        for (int i = 0; i < certs.size(); i++) {
            store.setCertificateEntry("ca" + i, certs.get(i));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
