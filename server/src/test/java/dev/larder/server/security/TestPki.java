package dev.larder.server.security;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority made for one test, in PEM files as an operator would have them: a CA certificate, and
 * server and client certificates it issues (valid now, or expired), each with its PKCS#8 key. EC P-256 keys, so
 * making them takes milliseconds.
 */
public final class TestPki {

    /** A certificate file and its key file. */
    public record Issued(Path cert, Path key) {
    }

    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private final Path dir;
    private final String name;
    private final KeyPair caKeys;
    private final X509Certificate caCert;
    private final Path caFile;

    private TestPki(Path dir, String name) throws Exception {
        this.dir = dir;
        this.name = name;
        this.caKeys = keyPair();
        X500Principal subject = new X500Principal("CN=" + name + " test CA");
        Instant now = Instant.now();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(30))), subject,
                caKeys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        this.caCert = sign(builder, caKeys.getPrivate());
        this.caFile = write(dir.resolve(name + "-ca.pem"), caCert);
    }

    /** A new CA named {@code name}, its certificate in {@code dir/name-ca.pem}. */
    public static TestPki create(Path dir, String name) throws Exception {
        Files.createDirectories(dir);
        return new TestPki(dir, name);
    }

    /** The CA certificate (PEM), for a client's trust store or the server's {@code --tls-client-ca}. */
    public Path caFile() {
        return caFile;
    }

    /** A server certificate for localhost and 127.0.0.1, valid for a month. */
    public Issued server(String fileName) throws Exception {
        Instant now = Instant.now();
        return issue(fileName, "localhost", now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(30)), true);
    }

    /** A client certificate valid from {@code notBefore} to {@code notAfter}. */
    public Issued client(String fileName, Instant notBefore, Instant notAfter) throws Exception {
        return issue(fileName, fileName, notBefore, notAfter, false);
    }

    /** A client certificate valid for a month. */
    public Issued client(String fileName) throws Exception {
        Instant now = Instant.now();
        return client(fileName, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(30)));
    }

    private Issued issue(String fileName, String commonName, Instant notBefore, Instant notAfter, boolean server)
            throws Exception {
        KeyPair keys = keyPair();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(caCert, serial(), Date.from(notBefore),
                Date.from(notAfter), new X500Principal("CN=" + commonName), keys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        if (server) {
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.dNSName, "localhost"),
                    new GeneralName(GeneralName.iPAddress, InetAddress.getLoopbackAddress().getHostAddress())}));
        }
        X509Certificate cert = sign(builder, caKeys.getPrivate());
        Path certFile = write(dir.resolve(fileName + ".crt"), cert);
        Path keyFile = writeKey(dir.resolve(fileName + ".key"), keys.getPrivate());
        return new Issued(certFile, keyFile);
    }

    private static KeyPair keyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static BigInteger serial() {
        return BigInteger.valueOf(SERIAL.incrementAndGet());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    }

    private static Path write(Path file, Object pem) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(pem);
        }
        return Files.writeString(file, text.toString());
    }

    private static Path writeKey(Path file, PrivateKey key) throws Exception {
        return write(file, new JcaPKCS8Generator(key, null).generate());
    }

    @Override
    public String toString() {
        return name + " CA in " + caFile;
    }
}
