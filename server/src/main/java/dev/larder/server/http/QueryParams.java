package dev.larder.server.http;

import java.util.Arrays;

/**
 * Reads one parameter from a request target as raw bytes. Keys are arbitrary bytes, so the value is
 * percent-decoded into bytes, never through a charset; {@code +} is a space as in form encoding.
 */
final class QueryParams {

    private QueryParams() {
    }

    /** Thrown for a malformed percent escape. */
    static final class MalformedQueryException extends IllegalArgumentException {
        MalformedQueryException(String message) {
            super(message);
        }
    }

    /** Where the path part of {@code uri} ends: at the first {@code ?} or {@code #}, else at its end. */
    static int pathEnd(String uri) {
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '?' || c == '#') {
                return i;
            }
        }
        return uri.length();
    }

    /** The path part of {@code uri} (before {@code ?} or {@code #}). */
    static String path(String uri) {
        return uri.substring(0, pathEnd(uri));
    }

    /**
     * The decoded value of the first {@code name} parameter in {@code uri}, {@code null} when absent. The request
     * line was decoded byte-per-char (ISO-8859-1), so each char below 256 is one raw byte.
     */
    static byte[] bytes(String uri, String name) {
        int query = uri.indexOf('?');
        if (query < 0) {
            return null;
        }
        int end = uri.indexOf('#', query);
        if (end < 0) {
            end = uri.length();
        }
        int i = query + 1;
        while (i <= end) {
            int amp = uri.indexOf('&', i);
            if (amp < 0 || amp > end) {
                amp = end;
            }
            int eq = uri.indexOf('=', i);
            boolean hasValue = eq >= 0 && eq < amp;
            int nameEnd = hasValue ? eq : amp;
            if (nameEnd - i == name.length() && uri.regionMatches(i, name, 0, name.length())) {
                return hasValue ? decode(uri, eq + 1, amp) : new byte[0];
            }
            i = amp + 1;
        }
        return null;
    }

    private static byte[] decode(String s, int from, int to) {
        // Into an array of the encoded length, which is the decoded length unless there were escapes: this runs for
        // every GET, PUT and DELETE on the event loop, and a key without escapes then costs one array.
        byte[] out = new byte[to - from];
        int o = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= to) {
                    throw new MalformedQueryException("truncated percent escape at offset " + i);
                }
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw new MalformedQueryException("invalid percent escape '" + s.substring(i, i + 3) + "'");
                }
                out[o++] = (byte) ((hi << 4) | lo);
                i += 2;
            } else if (c == '+') {
                out[o++] = ' ';
            } else if (c > 0xff) {
                throw new MalformedQueryException("non-byte character in query");
            } else {
                out[o++] = (byte) c;
            }
        }
        return o == out.length ? out : Arrays.copyOf(out, o);
    }
}
