package dev.larder.bench;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server to measure: either one already running ({@code url}), or one that bench starts itself from its own jar
 * with {@code serveArgs} (a fresh data directory each time) and stops afterwards: that is how {@code --compare}
 * puts two flag sets side by side.
 *
 * @param label     name in outputs and the report
 * @param url       data URL of a running server, or {@code null} for a launched one
 * @param serveArgs extra {@code larder serve} flags for a launched server, or {@code null} for a running one
 * @param adminUrl  admin endpoint ({@code /debug/profile}, {@code /metrics}); {@code null} = same host, port 8081
 *                  (or the {@code --admin-port} among {@code serveArgs})
 * @param serverLog a file holding the server's startup line, for the report's settings; may be {@code null}
 */
public record Target(String label, URI url, List<String> serveArgs, URI adminUrl, Path serverLog) {

    /** The admin port a server uses unless told otherwise. */
    public static final int DEFAULT_ADMIN_PORT = 8081;

    private static final Pattern LABEL = Pattern.compile("^([A-Za-z0-9_][A-Za-z0-9_.-]*)=(.*)$", Pattern.DOTALL);

    public Target {
        if ((url == null) == (serveArgs == null)) {
            throw new IllegalArgumentException("target: exactly one of a URL and serve flags");
        }
        if (url != null) {
            validate(url);
        }
        serveArgs = serveArgs == null ? null : List.copyOf(serveArgs);
        if (label == null || label.isBlank()) {
            throw new IllegalArgumentException("target: empty label");
        }
    }

    /** A running server. */
    public static Target external(String label, URI url) {
        return new Target(label, url, null, null, null);
    }

    /** True if bench starts this server itself. */
    public boolean launched() {
        return serveArgs != null;
    }

    public Target withAdminUrl(URI admin) {
        return new Target(label, url, serveArgs, admin, serverLog);
    }

    public Target withServerLog(Path log) {
        return new Target(label, url, serveArgs, adminUrl, log);
    }

    /** Checks an http or https URL with a host. */
    public static URI validate(URI url) {
        if (url.getScheme() == null || !(url.getScheme().equalsIgnoreCase("http")
                || url.getScheme().equalsIgnoreCase("https")) || url.getHost() == null) {
            throw new IllegalArgumentException("url: '" + url + "' (expected: http[s]://host:port[/path])");
        }
        return url;
    }

    /**
     * Parses a {@code --compare} spec: {@code [label=]http://host:port} for a running server, or
     * {@code [label=]FLAGS} (anything else, e.g. {@code sync=--workers 0}, or {@code default=} for no flags) for a
     * server bench starts with those {@code larder serve} flags. {@code index} numbers unlabelled specs.
     */
    public static Target parse(String spec, int index) {
        String s = spec.trim();
        String label = null;
        Matcher m = LABEL.matcher(s);
        if (m.matches() && !m.group(1).equalsIgnoreCase("http") && !m.group(1).equalsIgnoreCase("https")) {
            label = m.group(1);
            s = m.group(2).trim();
        }
        if (s.regionMatches(true, 0, "http://", 0, 7) || s.regionMatches(true, 0, "https://", 0, 8)) {
            URI url = validate(URI.create(s));
            return new Target(label != null ? label : url.getHost() + ":" + url.getPort(), url, null, null, null);
        }
        List<String> args = splitArgs(s);
        return new Target(label != null ? label : (args.isEmpty() ? "default" : "server" + index), null, args, null,
                null);
    }

    /** Splits flags on blanks, honouring single and double quotes. */
    static List<String> splitArgs(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    cur.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                any = true;
            } else if (Character.isWhitespace(c)) {
                if (cur.length() > 0 || any) {
                    out.add(cur.toString());
                    cur.setLength(0);
                    any = false;
                }
            } else {
                cur.append(c);
            }
        }
        if (cur.length() > 0 || any) {
            out.add(cur.toString());
        }
        return out;
    }

    /** The admin port among launch flags ({@code --admin-port N} or {@code --admin-port=N}), or -1. */
    int adminPortFlag() {
        if (serveArgs == null) {
            return -1;
        }
        for (int i = 0; i < serveArgs.size(); i++) {
            String a = serveArgs.get(i);
            try {
                if (a.equals("--admin-port") && i + 1 < serveArgs.size()) {
                    return Integer.parseInt(serveArgs.get(i + 1));
                }
                if (a.startsWith("--admin-port=")) {
                    return Integer.parseInt(a.substring("--admin-port=".length()));
                }
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }
}
