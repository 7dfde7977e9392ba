package dev.larder.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The {@code --report DIR} page: one self-contained {@code index.html} (inline SVG and CSS, no scripts, nothing
 * fetched) with the command, generator and server settings, the breakdown point, percentile curves per rate on
 * HdrHistogram's log scale, latency and achieved rate against target rate, status codes, warnings, and links to the
 * flame graphs and {@code .hgrm} files saved beside it.
 */
public final class HtmlReport {

    private static final String[] TARGET_COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
        "#8c564b"};
    private static final double[] TABLE_PERCENTILES = {50, 90, 99, 99.9, 99.99};

    private HtmlReport() {
    }

    /** Writes {@code dir/index.html} and {@code dir/hgrm/*.hgrm}; returns the page. */
    public static Path write(Path dir, BenchResult result) throws IOException {
        Files.createDirectories(dir);
        Path hgrmDir = dir.resolve("hgrm");
        Files.createDirectories(hgrmDir);
        for (TargetResult t : result.targets()) {
            for (RunResult r : t.runs()) {
                Hgrm.write(hgrmDir.resolve(hgrmName(t, r)), r);
            }
        }
        Map<String, String> charts = new java.util.LinkedHashMap<>();
        return writePage(dir, render(result, dir, charts), charts);
    }

    /** Writes {@code dir/index.html} and each chart as a standalone {@code dir/charts/NAME.svg}; returns the page. */
    static Path writePage(Path dir, String html, Map<String, String> charts) throws IOException {
        Files.createDirectories(dir);
        Path index = dir.resolve("index.html");
        Files.writeString(index, html, StandardCharsets.UTF_8);
        // The same charts as standalone files, for embedding in documents.
        Path chartDir = dir.resolve("charts");
        Files.createDirectories(chartDir);
        for (Map.Entry<String, String> c : charts.entrySet()) {
            Files.writeString(chartDir.resolve(c.getKey() + ".svg"), c.getValue(), StandardCharsets.UTF_8);
        }
        return index;
    }

    /** The page's head, style and title block (command, generator settings), shared by every report. */
    static StringBuilder pageHead(String title, String started, String machine, String command, String generator) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>").append(esc(title))
                .append("</title>\n");
        h.append("<style>body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}"
                + "h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}"
                + "h3{font-size:15px}table{border-collapse:collapse;font-size:12px;margin:8px 0}"
                + "td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#f3f3f3}"
                + "td.l,th.l{text-align:left}pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}"
                + ".miss{color:#b00}.ok{color:#070}.warn{color:#b05a00}.verdict{font-size:17px;font-weight:bold}"
                + "</style>\n</head><body>\n");
        h.append("<h1>").append(esc(title)).append("</h1>\n");
        h.append("<p>").append(esc(started)).append(" &middot; generator on ").append(esc(machine)).append("</p>\n");
        h.append("<h3>Command</h3><pre>").append(esc(command)).append("</pre>\n");
        h.append("<h3>Generator</h3><pre>").append(esc(generator)).append("</pre>\n");
        return h;
    }

    static String hgrmName(TargetResult t, RunResult r) {
        return Bench.fileSafe(t.label()) + "-" + (r.closedLoop() ? "max" : Units.rate(r.targetRate())) + ".hgrm";
    }

    static String render(BenchResult result, Path dir, Map<String, String> charts) {
        StringBuilder h = pageHead("larder bench report", result.started().toString(), result.machine(),
                result.options().commandLine(), result.options().describe());
        if (result.sweep() != null) {
            h.append("<p>SLO: ").append(esc(result.sweep().slo().describe())).append("</p>\n");
            for (int i = 0; i < result.targets().size(); i++) {
                TargetResult t = result.targets().get(i);
                if (t.sweep() != null) {
                    h.append("<p class=\"verdict\" style=\"color:").append(color(i)).append("\">")
                            .append(esc(t.label())).append(": ").append(esc(t.sweep().verdict())).append("</p>\n");
                }
            }
        }

        h.append("<h2>Servers</h2>\n");
        for (TargetResult t : result.targets()) {
            h.append("<h3>").append(esc(t.label())).append(" &mdash; ").append(esc(t.url().toString()))
                    .append("</h3>\n<pre>");
            if (t.settings().isEmpty()) {
                h.append("(no settings known: pass --server-log FILE, or expose /metrics on ")
                        .append(esc(t.adminUrl().toString())).append(")");
            }
            for (String s : t.settings()) {
                h.append(esc(s)).append('\n');
            }
            if (t.prefill() != null) {
                h.append("prefill: ").append(esc(t.prefill())).append('\n');
            }
            h.append("</pre>\n");
        }

        boolean severalRates = result.targets().stream().anyMatch(t -> t.runs().size() > 1);
        if (severalRates || result.targets().size() > 1) {
            h.append("<h2>Latency and throughput against target rate</h2>\n");
            h.append(chart(charts, "latency-vs-rate", latencyVsRate(result)));
            h.append(chart(charts, "achieved-vs-rate", achievedVsRate(result)));
        }

        h.append("<h2>Latency by percentile</h2>\n<p>Corrected latency (from the time each request was due), "
                + "HdrHistogram's percentile axis; both axes logarithmic.")
                .append(severalRates ? "" : " Dashed: uncorrected (from the actual send).").append("</p>\n");
        long yMin = Long.MAX_VALUE;
        long yMax = 0;
        for (TargetResult t : result.targets()) {
            for (RunResult r : t.runs()) {
                if (r.corrected().getTotalCount() > 0) {
                    yMin = Math.min(yMin, Math.max(1, r.uncorrected().getMinValue()));
                    yMax = Math.max(yMax, r.corrected().getMaxValue());
                }
            }
        }
        for (int i = 0; i < result.targets().size(); i++) {
            TargetResult t = result.targets().get(i);
            h.append(chart(charts, "percentiles-" + Bench.fileSafe(t.label()), percentileChart(t, yMin, yMax)));
        }

        h.append("<h2>Runs</h2>\n");
        for (TargetResult t : result.targets()) {
            h.append(runTable(t));
            h.append(statusTable(t));
            h.append(notes(t, dir));
        }
        h.append("<p style=\"color:#777;font-size:11px\">Latencies are measured wrk2-style: each connection sends on "
                + "a fixed schedule with one request in flight, and latency is taken from when the request should "
                + "have been sent. Per-thread HdrHistograms (1&micro;s..1 day, 3 digits) are merged.</p>\n");
        h.append("</body></html>\n");
        return h.toString();
    }

    static String chart(Map<String, String> charts, String name, String svg) {
        charts.put(name, svg);
        return svg;
    }

    private static String latencyVsRate(BenchResult result) {
        SvgChart chart = new SvgChart("Latency against target rate (p50 dotted, p99 solid, p99.9 dashed)", 980, 420)
                .xAxis("target rate, requests/s", false, SvgChart::plain)
                .yAxis("latency", true, Units::shortTime);
        for (int i = 0; i < result.targets().size(); i++) {
            TargetResult t = result.targets().get(i);
            List<RunResult> runs = sorted(t);
            String c = color(i);
            chart.line(t.label() + " p50", c, "2 3", series(runs, 50), true);
            chart.line(t.label() + " p99", c, null, series(runs, 99), true);
            chart.line(t.label() + " p99.9", c, "7 4", series(runs, 99.9), true);
            if (t.sweep() != null && t.sweep().breakdown() != null) {
                chart.vertical(t.sweep().breakdown(), c, t.label() + " breakdown " + Units.rate(t.sweep().breakdown()));
            }
        }
        if (result.sweep() != null) {
            for (Map.Entry<Double, Long> b : result.sweep().slo().bounds().entrySet()) {
                chart.horizontal(b.getValue(), "#555", "SLO p" + Slo.fmt(b.getKey()) + " "
                        + Units.timeMicros(b.getValue()));
            }
        }
        return chart.render();
    }

    private static String achievedVsRate(BenchResult result) {
        SvgChart chart = new SvgChart("Achieved against target rate (grey: achieved = target)", 980, 360)
                .xAxis("target rate, requests/s", false, SvgChart::plain)
                .yAxis("achieved, requests/s", false, SvgChart::plain);
        double max = 0;
        for (TargetResult t : result.targets()) {
            for (RunResult r : t.runs()) {
                max = Math.max(max, Math.max(r.targetRate(), r.achievedRate()));
            }
        }
        chart.line("achieved = target", "#bbb", "4 4", List.of(new double[] {0, 0}, new double[] {max, max}), false);
        for (int i = 0; i < result.targets().size(); i++) {
            TargetResult t = result.targets().get(i);
            List<double[]> pts = new ArrayList<>();
            for (RunResult r : sorted(t)) {
                pts.add(new double[] {r.targetRate(), r.achievedRate()});
            }
            chart.line(t.label(), color(i), null, pts, true);
            if (t.sweep() != null && t.sweep().breakdown() != null) {
                chart.vertical(t.sweep().breakdown(), color(i), "breakdown " + Units.rate(t.sweep().breakdown()));
            }
        }
        return chart.render();
    }

    private static String percentileChart(TargetResult t, long yMin, long yMax) {
        List<RunResult> runs = sorted(t);
        SvgChart chart = new SvgChart(t.label() + ": latency by percentile", 980, 440)
                .xAxis("percentile", true, HtmlReport::percentileLabel)
                .yAxis("latency", true, Units::shortTime)
                .xRange(1, 1e6)
                .xTicks(1, 10, 100, 1e3, 1e4, 1e5, 1e6);
        if (yMax > 0) {
            chart.yRange(Math.max(1, yMin), yMax);
        }
        for (int k = 0; k < runs.size(); k++) {
            RunResult r = runs.get(k);
            String c = runs.size() == 1 ? TARGET_COLORS[0] : gradient(k, runs.size());
            boolean held = held(t, r);
            chart.line(r.rateLabel() + (t.sweep() == null ? "" : held ? "" : " (miss)"), c, null,
                    percentilePoints(r.corrected()), false);
            if (runs.size() == 1) {
                chart.line("uncorrected", c, "5 4", percentilePoints(r.uncorrected()), false);
            }
        }
        return chart.render();
    }

    /** HdrHistogram's plot: x = 1/(1-percentile), the value at each percentile step; the 100% point is dropped. */
    static List<double[]> percentilePoints(Histogram h) {
        List<double[]> pts = new ArrayList<>();
        if (h.getTotalCount() == 0) {
            return pts;
        }
        for (HistogramIterationValue v : h.percentiles(5)) {
            double p = v.getPercentileLevelIteratedTo() / 100.0;
            if (p >= 1.0) {
                break;
            }
            pts.add(new double[] {1 / (1 - p), Math.max(1, v.getValueIteratedTo())});
        }
        // The maximum, placed where one sample in totalCount sits.
        pts.add(new double[] {Math.min(1e6, Math.max(1, h.getTotalCount())), Math.max(1, h.getMaxValue())});
        return pts;
    }

    static String percentileLabel(double x) {
        if (x <= 1) {
            return "0%";
        }
        int decades = (int) Math.round(Math.log10(x));
        StringBuilder sb = new StringBuilder("99");
        if (decades == 1) {
            return "90%";
        }
        if (decades > 2) {
            sb.append('.').append("9".repeat(decades - 2));
        }
        return sb.append('%').toString();
    }

    private static String runTable(TargetResult t) {
        StringBuilder h = new StringBuilder();
        h.append("<h3>").append(esc(t.label())).append("</h3>\n<table><tr><th>target rate</th><th>achieved</th>");
        for (double p : TABLE_PERCENTILES) {
            h.append("<th>p").append(Slo.fmt(p)).append("</th>");
        }
        h.append("<th>max</th><th>uncorr. p99</th><th>gen. lag p99</th><th>requests</th><th>errors</th>");
        if (t.sweep() != null) {
            h.append("<th class=\"l\">SLO</th>");
        }
        h.append("</tr>\n");
        for (RunResult r : sorted(t)) {
            h.append("<tr><td>").append(esc(r.closedLoop() ? "max" : Units.rate(r.targetRate()))).append("</td><td>")
                    .append(String.format(Locale.ROOT, "%.1f (%.1f%%)", r.achievedRate(), 100 * r.achievedRatio()))
                    .append("</td>");
            for (double p : TABLE_PERCENTILES) {
                h.append("<td>").append(Units.timeMicros(r.percentile(p))).append("</td>");
            }
            h.append("<td>").append(Units.timeMicros(r.corrected().getMaxValue())).append("</td><td>")
                    .append(Units.timeMicros(r.uncorrected().getTotalCount() == 0 ? 0
                            : r.uncorrected().getValueAtPercentile(99)))
                    .append("</td><td>").append(Units.timeMicros(r.lag().getTotalCount() == 0 ? 0
                            : r.lag().getValueAtPercentile(99)))
                    .append("</td><td>").append(r.completed()).append("</td><td>")
                    .append(String.format(Locale.ROOT, "%.2f%%", 100 * r.errorRatio())).append("</td>");
            if (t.sweep() != null) {
                List<String> v = violations(t, r);
                h.append(v.isEmpty() ? "<td class=\"l ok\">held</td>"
                        : "<td class=\"l miss\">" + esc(String.join("; ", v)) + "</td>");
            }
            h.append("</tr>\n");
        }
        h.append("</table>\n");
        return h.toString();
    }

    private static String statusTable(TargetResult t) {
        TreeSet<Integer> codes = new TreeSet<>();
        for (RunResult r : t.runs()) {
            codes.addAll(r.statusCounts().keySet());
        }
        StringBuilder h = new StringBuilder("<table><tr><th>status codes</th>");
        for (int c : codes) {
            h.append("<th>").append(c).append("</th>");
        }
        h.append("<th>socket errors (connect/read/write/timeout)</th></tr>\n");
        for (RunResult r : sorted(t)) {
            h.append("<tr><td>").append(esc(r.rateLabel())).append("</td>");
            for (int c : codes) {
                h.append("<td>").append(r.statusCounts().getOrDefault(c, 0L)).append("</td>");
            }
            SocketErrors e = r.errors();
            h.append("<td>").append(e.connect()).append('/').append(e.read()).append('/').append(e.write())
                    .append('/').append(e.timeout()).append("</td></tr>\n");
        }
        return h.append("</table>\n").toString();
    }

    private static String notes(TargetResult t, Path dir) {
        StringBuilder h = new StringBuilder("<ul>\n");
        for (RunResult r : sorted(t)) {
            StringBuilder items = new StringBuilder();
            for (Warning w : r.warnings()) {
                items.append("<li class=\"warn\">").append(esc(w.message())).append("</li>");
            }
            for (ProfileResult p : r.profiles()) {
                if (p.ok()) {
                    String rel = relative(dir, p.file());
                    items.append("<li>flame graph <a href=\"").append(esc(rel)).append("\">").append(esc(p.event()))
                            .append("</a> (").append(p.seconds()).append(" s)</li>");
                } else {
                    items.append("<li class=\"warn\">").append(esc(p.event())).append(": ").append(esc(p.error()))
                            .append("</li>");
                }
            }
            items.append("<li><a href=\"hgrm/").append(esc(hgrmName(t, r))).append("\">.hgrm</a> &middot; <a href=\"hgrm/")
                    .append(esc(Hgrm.uncorrectedName(Path.of(hgrmName(t, r))).toString()))
                    .append("\">uncorrected .hgrm</a></li>");
            h.append("<li>").append(esc(r.rateLabel())).append("<ul>").append(items).append("</ul></li>\n");
        }
        return h.append("</ul>\n").toString();
    }

    private static String relative(Path dir, Path file) {
        try {
            return dir.toAbsolutePath().normalize().relativize(file.toAbsolutePath().normalize()).toString()
                    .replace('\\', '/');
        } catch (IllegalArgumentException e) {
            return file.toUri().toString();
        }
    }

    private static boolean held(TargetResult t, RunResult r) {
        return violations(t, r).isEmpty();
    }

    private static List<String> violations(TargetResult t, RunResult r) {
        if (t.sweep() == null) {
            return List.of();
        }
        for (SweepOutcome.Point p : t.sweep().points()) {
            if (p.result() == r) {
                return p.violations();
            }
        }
        return List.of();
    }

    private static List<RunResult> sorted(TargetResult t) {
        return t.runs().stream().sorted(java.util.Comparator.comparingDouble(RunResult::targetRate)).toList();
    }

    private static List<double[]> series(List<RunResult> runs, double percentile) {
        List<double[]> pts = new ArrayList<>();
        for (RunResult r : runs) {
            if (r.completed() > 0) {
                pts.add(new double[] {r.targetRate(), Math.max(1, r.percentile(percentile))});
            }
        }
        return pts;
    }

    static String color(int i) {
        return TARGET_COLORS[i % TARGET_COLORS.length];
    }

    // Blue (low rate) to red (high rate).
    private static String gradient(int k, int n) {
        double f = n <= 1 ? 0 : (double) k / (n - 1);
        int r = (int) Math.round(44 + f * (215 - 44));
        int g = (int) Math.round(123 + f * (25 - 123));
        int b = (int) Math.round(182 + f * (28 - 182));
        return String.format(Locale.ROOT, "#%02x%02x%02x", r, g, b);
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
