package dev.larder.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.RawHttp;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bearer tokens on the data port, over real sockets with the JDK's HTTP client and a raw socket. */
class TokenCheckTest {

    private static final String OLD = "old-token-0123456789abcdef";
    private static final String NEW = "new-token-fedcba9876543210";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ListenerSecurity tokens(Path file) {
        return ListenerSecurity.of(null, TokenFile.load(file), ServerSecurity.DATA_OPEN_PATHS, "larder");
    }

    private HttpResponse<String> send(String method, String url, String authorization, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void missingWrongOrNonBearerCredentialsGet401AndWriteNothing() throws Exception {
        Path file = Files.writeString(dir.resolve("tokens"), "# data port\n" + OLD + "\n");
        try (SecuredServer larder = new SecuredServer(dir, tokens(file))) {
            String entity = larder.url("http", "/v0/entity?id=k");

            HttpResponse<String> none = send("PUT", entity, null, "stolen");
            assertEquals(401, none.statusCode());
            assertEquals("Bearer realm=\"larder\"", none.headers().firstValue("WWW-Authenticate").orElseThrow());

            HttpResponse<String> wrong = send("PUT", entity, "Bearer " + OLD + "x", "stolen");
            assertEquals(401, wrong.statusCode());
            assertEquals("Bearer realm=\"larder\", error=\"invalid_token\"",
                    wrong.headers().firstValue("WWW-Authenticate").orElseThrow());
            assertFalse(wrong.body().contains(OLD), "the answer does not echo the token");

            assertEquals(401, send("PUT", entity, "Basic " + OLD, "stolen").statusCode());
            assertEquals(401, send("GET", entity, "Bearer", null).statusCode());
            assertEquals(401, send("GET", entity, "Bearer " + OLD.substring(0, 20), null).statusCode());

            // Nothing was stored by the refused PUTs: with the token, the key is absent.
            assertEquals(404, send("GET", entity, "Bearer " + OLD, null).statusCode());
            assertEquals(201, send("PUT", entity, "bearer " + OLD, "mine").statusCode());
            HttpResponse<String> read = send("GET", entity, "Bearer " + OLD, null);
            assertEquals(200, read.statusCode());
            assertEquals("mine", read.body());

            assertEquals(200, send("GET", larder.url("http", "/v0/status"), null, null).statusCode(),
                    "the liveness route stays open");
            assertEquals(401, send("GET", larder.url("http", "/v0/status/../entity?id=k"), null, null).statusCode(),
                    "only the exact open path is open");
            assertEquals("401", rawStatus(larder, "GET http://example.com/v0/entity?id=k"), "absolute form, no token");
            assertEquals("200", rawStatus(larder, "GET http://example.com/v0/status"), "absolute form of the open path");
        }
    }

    /** The status code of the answer to {@code requestLine} (no credentials) on a connection of its own. */
    private static String rawStatus(SecuredServer larder, String requestLine) throws Exception {
        String[] methodAndTarget = requestLine.split(" ", 2);
        try (RawHttp raw = new RawHttp(new InetSocketAddress("127.0.0.1", larder.port()))) {
            return Integer.toString(raw.exchange(methodAndTarget[0], methodAndTarget[1], null).status());
        }
    }

    @Test
    void aRefusedUploadIsAnsweredBeforeItsBodyAndTheConnectionCloses() throws Exception {
        Path file = Files.writeString(dir.resolve("tokens"), OLD + "\n");
        try (SecuredServer larder = new SecuredServer(dir, tokens(file));
             Socket socket = new Socket("127.0.0.1", larder.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            // Announces 8 MiB but sends only the headers: the 401 must come without waiting for the body.
            out.write(("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 401 Unauthorized\r\n"), answer);
            assertTrue(answer.toLowerCase().contains("connection: close"), answer);
        }
    }

    @Test
    void tokensRotateByEditingTheFileWhileServing() throws Exception {
        Path file = Files.writeString(dir.resolve("tokens"), OLD + "\n");
        TokenFile tokens = TokenFile.load(file);
        ListenerSecurity watched = ListenerSecurity.of(null, tokens, Set.of(), "larder");
        try (SecuredServer larder = new SecuredServer(dir, watched);
             SecurityReloader reloader = SecurityReloader.start(List.of(tokens), Duration.ofMillis(50))) {
            String status = larder.url("http", "/v0/entity?id=r");
            assertEquals(404, send("GET", status, "Bearer " + OLD, null).statusCode());
            assertEquals(401, send("GET", status, "Bearer " + NEW, null).statusCode());

            Files.writeString(file, OLD + "\n" + NEW + "\n");
            awaitStatus(status, "Bearer " + NEW, 404);
            assertEquals(404, send("GET", status, "Bearer " + OLD, null).statusCode(), "both during the rotation");

            Files.writeString(file, NEW + "\n");
            awaitStatus(status, "Bearer " + OLD, 401);
            assertEquals(404, send("GET", status, "Bearer " + NEW, null).statusCode());

            // A broken edit keeps what was loaded before.
            Files.writeString(file, "short\n");
            Thread.sleep(300);
            assertEquals(404, send("GET", status, "Bearer " + NEW, null).statusCode());
        }
    }

    private void awaitStatus(String url, String authorization, int expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int status = -1;
        while (System.nanoTime() < deadline) {
            status = send("GET", url, authorization, null).statusCode();
            if (status == expected) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("never " + expected + ", last " + status);
    }

    @Test
    void badTokenFilesAreRefusedWithOneLine() throws Exception {
        Path missing = dir.resolve("missing");
        IllegalArgumentException unreadable = assertThrows(IllegalArgumentException.class,
                () -> TokenFile.load(missing));
        assertTrue(unreadable.getMessage().startsWith(missing + ": cannot read"), unreadable.getMessage());
        Path empty = Files.writeString(dir.resolve("empty"), "# nothing\n\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenFile.load(empty)).getMessage()
                .contains("no token"));
        Path shortToken = Files.writeString(dir.resolve("short"), "abc\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenFile.load(shortToken)).getMessage()
                .contains("line 1 is not a token"));
        Path spaced = Files.writeString(dir.resolve("spaced"), OLD + "\n" + "two words here, long enough\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenFile.load(spaced)).getMessage()
                .contains("line 2"));
    }

    @Test
    void everyTokenOfTheFileIsAcceptedAndNothingElse() throws Exception {
        TokenFile tokens = TokenFile.load(Files.writeString(dir.resolve("t"), OLD + "\n  " + NEW + "  \n"));
        assertEquals(2, tokens.size());
        assertTrue(tokens.accepts(OLD));
        assertTrue(tokens.accepts(NEW));
        assertFalse(tokens.accepts(OLD.toUpperCase()));
        assertFalse(tokens.accepts(""));
        assertFalse(tokens.accepts(OLD + NEW));
    }
}
