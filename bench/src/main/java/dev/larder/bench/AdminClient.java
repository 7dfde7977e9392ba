package dev.larder.bench;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Talks to a Larder server's admin endpoint: {@code GET /debug/profile?event=E&seconds=N&format=html} (a
 * self-contained flame graph; 409 while another profile runs) and {@code GET /metrics} (Prometheus text). Every
 * failure becomes a message for the report rather than an exception: a benchmark does not fail because the
 * profiler is missing.
 */
final class AdminClient {

    private final URI base;
    private final HttpClient http;

    AdminClient(URI base) {
        this.base = base;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    }

    URI base() {
        return base;
    }

    /** Profiles {@code event} for {@code seconds} and saves the HTML to {@code file}. */
    ProfileResult profile(String event, int seconds, Path file) {
        URI uri = base.resolve("/debug/profile?event=" + event + "&seconds=" + seconds + "&format=html");
        try {
            HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(seconds + 30L)).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            int code = response.statusCode();
            if (code == 200) {
                Files.createDirectories(file.toAbsolutePath().getParent());
                Files.write(file, response.body());
                return new ProfileResult(event, seconds, file, null);
            }
            String body = firstLine(new String(response.body(), StandardCharsets.UTF_8));
            String why = switch (code) {
                case 404 -> "HTTP 404 from " + uri.getPath() + " (this server has no profiler endpoint; larder serves it "
                        + "with --profiling)";
                case 409 -> "HTTP 409: another profile is already running on the server";
                default -> "HTTP " + code + (body.isEmpty() ? "" : ": " + body);
            };
            return unavailable(event, seconds, why);
        } catch (ConnectException e) {
            return unavailable(event, seconds, "connection refused at " + base
                    + " (is the admin endpoint enabled? set --admin-url)");
        } catch (HttpConnectTimeoutException e) {
            return unavailable(event, seconds, "cannot connect to " + base + " (timed out)");
        } catch (HttpTimeoutException e) {
            return unavailable(event, seconds, "no answer from " + uri + " within " + (seconds + 30) + "s");
        } catch (IOException e) {
            return unavailable(event, seconds, e.getClass().getSimpleName() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unavailable(event, seconds, "interrupted");
        }
    }

    private static ProfileResult unavailable(String event, int seconds, String why) {
        return new ProfileResult(event, seconds, null, "profile unavailable: " + why);
    }

    /** The {@code /metrics} text, or empty if there is none. */
    Optional<String> metrics() {
        return metrics(base.resolve("/metrics"));
    }

    /**
     * The {@code /metrics} text of the metrics {@code names} only (a Larder server answers {@code name[]} since
     * session 75; an older one answers them all, which reads the same), or empty if there is none.
     */
    Optional<String> metrics(List<String> names) {
        StringBuilder target = new StringBuilder("/metrics");
        for (int i = 0; i < names.size(); i++) {
            target.append(i == 0 ? '?' : '&').append("name%5B%5D=")
                    .append(URLEncoder.encode(names.get(i), StandardCharsets.UTF_8));
        }
        return metrics(base.resolve(target.toString()));
    }

    private Optional<String> metrics(URI uri) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * The lines of a Prometheus exposition that describe configuration rather than load: {@code *_info} series and
     * Larder gauges about threads, workers, queues, transport or rejection.
     */
    static List<String> settingLines(String metrics) {
        List<String> out = new ArrayList<>();
        for (String line : metrics.split("\n")) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < l.length() && (Character.isLetterOrDigit(l.charAt(end)) || l.charAt(end) == '_'
                    || l.charAt(end) == ':')) {
                end++;
            }
            String name = l.substring(0, end);
            if (name.endsWith("_info") || (name.startsWith("larder") && name.matches(
                    ".*(config|setting|workers|threads|queue_capacity|queue_size|transport|rejection).*"))) {
                out.add(l);
            }
            if (out.size() >= 40) {
                break;
            }
        }
        return out;
    }

    private static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        t = nl < 0 ? t : t.substring(0, nl);
        return t.length() > 200 ? t.substring(0, 200) + "..." : t;
    }
}
