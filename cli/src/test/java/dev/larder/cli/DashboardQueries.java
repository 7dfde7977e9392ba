package dev.larder.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL of {@code docs/grafana/larder.json} and the series each query selects. A small reader rather than a
 * PromQL parser: it knows the shapes the dashboard uses (functions, aggregations with {@code by (...)}, selectors
 * with label matchers, range vectors, arithmetic).
 */
public final class DashboardQueries {

    /** One selector: a metric name and its label matchers ({@code label -> "=value"}, {@code "!=value"}, ...). */
    record Selector(String metric, Map<String, String> matchers) {
    }

    private static final Pattern EXPR = Pattern.compile("\"expr\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern GROUPING =
            Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*\\]");
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*(\\{[^}]*\\})?");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");
    /** Labels Prometheus attaches to every scraped series; the exposition itself does not have them. */
    static final Set<String> TARGET_LABELS = Set.of("job", "instance");
    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right", "bool", "and", "or", "unless", "offset");

    private DashboardQueries() {
    }

    static Path dashboard() {
        String repo = System.getProperty("larder.repo");
        if (repo == null) {
            throw new IllegalStateException("-Dlarder.repo is not set (run through Maven)");
        }
        return Path.of(repo, "docs", "grafana", "larder.json");
    }

    /** Every {@code expr} of the dashboard, JSON-unescaped. */
    public static List<String> expressions() throws IOException {
        Matcher m = EXPR.matcher(Files.readString(dashboard()));
        List<String> exprs = new ArrayList<>();
        while (m.find()) {
            exprs.add(m.group(1).replace("\\\"", "\"").replace("\\\\", "\\"));
        }
        return exprs;
    }

    /** The series selectors in {@code expr}. */
    static List<Selector> selectors(String expr) {
        String s = RANGE.matcher(GROUPING.matcher(expr).replaceAll(" ")).replaceAll(" ");
        List<Selector> selectors = new ArrayList<>();
        Matcher m = SELECTOR.matcher(s);
        while (m.find()) {
            String name = m.group(1);
            int after = m.end();
            while (after < s.length() && s.charAt(after) == ' ') {
                after++;
            }
            boolean call = m.group(2) == null && after < s.length() && s.charAt(after) == '(';
            boolean number = m.start() > 0 && Character.isDigit(s.charAt(m.start() - 1));
            if (call || number || KEYWORDS.contains(name)) {
                continue;
            }
            Map<String, String> matchers = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher lm = MATCHER.matcher(m.group(2));
                while (lm.find()) {
                    matchers.put(lm.group(1), lm.group(2) + lm.group(3));
                }
            }
            selectors.add(new Selector(name, matchers));
        }
        return selectors;
    }

    /** A Grafana expression made runnable by Prometheus itself (Grafana's variables filled in: every job, instance). */
    public static String forPrometheus(String expr) {
        return expr.replace("$__rate_interval", "1m").replace("$__interval", "15s").replace("$__range", "5m")
                .replace("$job", ".+").replace("$instance", ".+");
    }
}
