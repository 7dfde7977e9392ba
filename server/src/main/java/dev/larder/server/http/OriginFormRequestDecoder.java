package dev.larder.server.http;

import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestDecoder;

/**
 * Netty's request decoder, with a target in absolute form ({@code GET http://host:8080/v0/status}) turned into the
 * origin form ({@code /v0/status}) the routes and the token check match on. RFC 9112 3.2.2: a server must accept the
 * absolute form, which proxies send and some clients use; before, such a request was 400 "unknown path". The
 * authority is dropped: Larder serves one set of routes whatever the host, and reads no Host header either.
 */
final class OriginFormRequestDecoder extends HttpRequestDecoder {

    OriginFormRequestDecoder(HttpDecoderConfig config) {
        super(config);
    }

    @Override
    protected HttpMessage createMessage(String[] initialLine) throws Exception {
        initialLine[1] = originForm(initialLine[1]);
        return super.createMessage(initialLine);
    }

    /** {@code target} unchanged unless it is an http or https URI; then its path and query ("/" for no path). */
    static String originForm(String target) {
        if (target.isEmpty() || target.charAt(0) == '/') {
            return target;
        }
        int authority = schemeEnd(target);
        if (authority < 0) {
            return target;
        }
        int path = authority;
        while (path < target.length() && "/?#".indexOf(target.charAt(path)) < 0) {
            path++;
        }
        if (path == target.length() || target.charAt(path) != '/') {
            return "/" + target.substring(path);
        }
        return target.substring(path);
    }

    /** Where the authority starts after "http://" or "https://" (any case), or -1 for any other target. */
    private static int schemeEnd(String target) {
        for (String scheme : new String[] {"http://", "https://"}) {
            if (target.regionMatches(true, 0, scheme, 0, scheme.length())) {
                return scheme.length();
            }
        }
        return -1;
    }
}
