package dev.larder.server.answer;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.larder.server.config.RejectReason;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Builds every answer the data port sends; each carries {@code content-length} so keep-alive never breaks. The
 * answers every GET, PUT and DELETE ends with are built once.
 */
public final class HttpResponses {

    private static final String OCTET_STREAM = "application/octet-stream";
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final byte[] EMPTY = new byte[0];

    public static final Answer CREATED = Answer.of(HttpResponseStatus.CREATED, null).body(EMPTY);
    public static final Answer ACCEPTED = Answer.of(HttpResponseStatus.ACCEPTED, null).body(EMPTY);
    public static final Answer NOT_FOUND = text(HttpResponseStatus.NOT_FOUND, "not found");
    private static final Answer VALUE = Answer.of(HttpResponseStatus.OK, OCTET_STREAM).body(EMPTY);

    private HttpResponses() {
    }

    /** 200 with stored bytes (not copied: the caller hands them over). */
    public static Answer value(byte[] value) {
        return VALUE.withBody(value);
    }

    /** A lookup's answer: 200 with the stored bytes, or 404 when there are none ({@code null}). */
    public static Answer valueOrNotFound(byte[] stored) {
        return stored == null ? NOT_FOUND : value(stored);
    }

    /** A one-line plain-text answer: the reason a client (or a person with curl) can read. */
    public static Answer text(HttpResponseStatus status, String line) {
        return Answer.of(status, TEXT).body(line(line));
    }

    /** 503 for a request refused without touching storage; clients may retry after a second. */
    public static Answer unavailable(RejectReason reason) {
        return Answer.of(HttpResponseStatus.SERVICE_UNAVAILABLE, TEXT).header("retry-after", "1")
                .body(line(reason.message()));
    }

    /** 503 for a connection over {@code --max-connections}. */
    public static Answer tooManyConnections(int maxConnections) {
        return Answer.of(HttpResponseStatus.SERVICE_UNAVAILABLE, TEXT).header("retry-after", "1")
                .body(line("too many connections (--max-connections " + maxConnections + ")"));
    }

    /** 405 naming the methods the route does accept. */
    public static Answer methodNotAllowed(String allow) {
        return Answer.of(HttpResponseStatus.METHOD_NOT_ALLOWED, TEXT).header("allow", allow)
                .body(line("method not allowed; use " + allow));
    }

    private static byte[] line(String line) {
        // One line, whatever the reason text carried: clients and log scrapers read it as such.
        return (line.replace('\r', ' ').replace('\n', ' ') + "\n").getBytes(UTF_8);
    }
}
