package dev.larder.server.http;

/**
 * A request target in absolute form ({@code http://host:8080/v0/status}) as the origin form ({@code /v0/status}) that
 * routes and token checks match on. RFC 9112 3.2.2: a server must accept the absolute form, which proxies send and
 * some clients use. The authority is dropped: each port serves one set of paths whatever the host, and reads no Host
 * header either.
 */
public final class OriginForm {

    private static final String[] SCHEMES = {"http://", "https://"};

    private OriginForm() {
    }

    /** {@code target} unchanged unless it is an http or https URI; then its path and query ("/" for no path). */
    public static String of(String target) {
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
        for (String scheme : SCHEMES) {
            if (target.regionMatches(true, 0, scheme, 0, scheme.length())) {
                return scheme.length();
            }
        }
        return -1;
    }
}
