package dev.larder.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code larder tune}'s outputs: the ranked table and winning flags as text, the JSON summary, the HTML report. */
final class TuneReport {

    /** Curves drawn in the report: the best few and the default. */
    private static final int CURVES = 3;

    private TuneReport() {
    }

    static String text(TuneResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "larder tune: %s, SLO %s; %d servers measured in %s (budget %s); "
                        + "screening window %s, later rounds %s; %s; rates from the default's closed-loop %s "
                        + "req/s%n%n",
                r.options().workload().describe(), r.options().slo().describe(), measurements(r),
                Tuner.clock(r.elapsed().toMillis() / 1000.0), Tuner.clock(r.options().budget().toSeconds()),
                Tuner.clock(r.window().toSeconds()), Tuner.clock(2 * r.window().toSeconds()),
                r.options().hold().isZero() ? "no hold round"
                        : "finalists held for " + Tuner.clock(r.options().hold().toMillis() / 1000.0),
                Units.rate(r.capacity())));
        sb.append(String.format(Locale.ROOT, "%4s  %-9s %14s %11s %4s %13s %13s %13s  %s%n", "rank", "round",
                "breakdown/s", "spread", "n", "held/s", "p99 at 75%", "CPU/request", "flags"));
        int rank = 1;
        for (TuneResult.Entry e : r.ranked()) {
            sb.append(String.format(Locale.ROOT, "%4d  %-9s %14s %11s %4d %13s %13s %13s  %s%n", rank++, e.stage(),
                    Units.rate(e.breakdown()), e.lastStage().size() > 1 ? "± " + Units.rate(e.spread() / 2) : "",
                    e.lastStage().size(), TuneResult.heldText(e),
                    e.p99At75Micros() < 0 ? "" : Units.timeMicros(e.p99At75Micros()),
                    e.cpuMicrosPerRequest() < 0 ? "" : String.format(Locale.ROOT, "%.1fus", e.cpuMicrosPerRequest()),
                    e.candidate().label()));
        }
        TuneResult.Entry w = r.winner();
        TuneResult.Entry d = r.defaults();
        sb.append(String.format(Locale.ROOT, "%nbest: %s (breakdown %s req/s against the default's %s, %+.0f%%",
                w.candidate().label(), Units.rate(w.breakdown()), Units.rate(d.breakdown()),
                d.breakdown() > 0 ? 100 * (w.breakdown() / d.breakdown() - 1) : 0));
        if (w.heldRate() >= 0 && d.heldRate() >= 0) {
            sb.append(String.format(Locale.ROOT, "; held %s req/s for %s against the default's %s",
                    TuneResult.heldText(w), Tuner.clock(r.options().hold().toMillis() / 1000.0),
                    TuneResult.heldText(d)));
        }
        sb.append(")\n");
        sb.append("  flags: larder serve ").append(w.candidate().isDefault() ? "(no flags: the defaults)"
                : w.candidate().label()).append('\n');
        sb.append("  env:   ").append(w.candidate().isDefault() ? "(none)" : w.candidate().env()).append('\n');
        for (String note : r.notes()) {
            sb.append("  note: ").append(note).append('\n');
        }
        return sb.toString();
    }

    private static int measurements(TuneResult r) {
        return r.ranked().stream().mapToInt(e -> e.measurements().size()).sum();
    }

    static String json(TuneResult r) {
        Json j = new Json().beginObject();
        j.field("command", r.options().commandLine());
        j.field("started", r.started().toString());
        j.field("elapsed_s", r.elapsed().toMillis() / 1000.0);
        j.field("budget_s", (double) r.options().budget().toSeconds());
        j.field("workload", r.options().workload().describe());
        j.field("slo", r.options().slo().describe());
        j.field("window_s", r.window().toMillis() / 1000.0);
        j.field("hold_s", r.options().hold().toMillis() / 1000.0);
        j.field("capacity_closed_loop", r.capacity());
        j.field("full_grid_size", (long) TuneSpace.gridSize(r.options().dimensions()));
        j.field("servers_measured", (long) measurements(r));
        j.key("winner");
        candidate(j, r.winner());
        j.key("default");
        candidate(j, r.defaults());
        j.key("ranked").beginArray();
        for (TuneResult.Entry e : r.ranked()) {
            candidate(j, e);
        }
        j.endArray();
        j.key("notes").beginArray();
        for (String n : r.notes()) {
            j.value(n);
        }
        j.endArray();
        return j.endObject().toString();
    }

    private static void candidate(Json j, TuneResult.Entry e) {
        j.beginObject();
        j.field("flags", e.candidate().isDefault() ? "" : e.candidate().label());
        j.field("env", e.candidate().env());
        j.field("round", e.stage());
        j.field("breakdown_rate", e.breakdown());
        j.field("spread", e.spread());
        j.key("breakdowns").beginArray();
        for (double b : e.lastStage()) {
            j.value(b);
        }
        j.endArray();
        // null: not held (not a finalist, no hold round, or no time for it); 0: none of its holds held.
        if (e.heldRate() >= 0) {
            j.field("held_rate", e.heldRate());
        } else {
            j.key("held_rate").nullValue();
        }
        if (e.p99At75Micros() >= 0) {
            j.field("p99_at_75pct_ms", e.p99At75Micros() / 1000.0);
        } else {
            j.key("p99_at_75pct_ms").nullValue();
        }
        if (e.cpuMicrosPerRequest() >= 0) {
            j.field("cpu_us_per_request", e.cpuMicrosPerRequest());
        } else {
            j.key("cpu_us_per_request").nullValue();
        }
        j.key("holds").beginArray();
        for (SweepOutcome.Point p : e.holds()) {
            j.beginObject();
            j.field("rate", p.result().targetRate());
            j.field("p99_ms", p.result().percentile(99) / 1000.0);
            j.field("held", p.held());
            j.endObject();
        }
        j.endArray();
        j.endObject();
    }

    /** Writes {@code dir/index.html} (and {@code dir/charts/curves.svg}). */
    static Path html(TuneResult r, Path dir) throws IOException {
        StringBuilder h = HtmlReport.pageHead("larder tune", r.started().toString(), Bench.machine(),
                r.options().commandLine(), r.options().workload().describe() + "; SLO " + r.options().slo().describe()
                        + "; " + r.options().connections() + " connections");
        Map<String, String> charts = new LinkedHashMap<>();
        h.append("<h2>Result</h2><pre>").append(HtmlReport.esc(text(r))).append("</pre>\n");
        SvgChart chart = new SvgChart("p99 against target rate: the best candidates and the default (last sweep "
                + "of each)", 980, 420)
                .xAxis("target rate, requests/s", false, SvgChart::plain)
                .yAxis("p99 latency", true, Units::shortTime);
        List<TuneResult.Entry> shown = new java.util.ArrayList<>(r.ranked().subList(0,
                Math.min(CURVES, r.ranked().size())));
        if (!shown.contains(r.defaults())) {
            shown.add(r.defaults());
        }
        for (int i = 0; i < shown.size(); i++) {
            TuneResult.Entry e = shown.get(i);
            List<double[]> points = new java.util.ArrayList<>();
            for (SweepOutcome.Point p : e.lastSweep().byRate()) {
                points.add(new double[] {p.result().targetRate(), p.result().percentile(99)});
            }
            String color = HtmlReport.color(i);
            chart.line(e.candidate().label(), color, e.candidate().isDefault() ? "7 4" : null, points, true);
            if (e.breakdown() > 0) {
                chart.vertical(e.breakdown(), color, Units.rate(e.breakdown()));
            }
        }
        for (Map.Entry<Double, Long> b : r.options().slo().bounds().entrySet()) {
            chart.horizontal(b.getValue(), "#555", "SLO p" + Slo.fmt(b.getKey()) + " " + Units.timeMicros(b.getValue()));
        }
        h.append("<h2>Breakdown curves</h2>\n").append(HtmlReport.chart(charts, "curves", chart.render()));
        h.append("<h2>Every measurement</h2>\n<table><tr><th class=\"l\">flags</th><th class=\"l\">round</th>"
                + "<th>breakdown req/s</th><th>held req/s</th><th class=\"l\">verdict</th></tr>\n");
        for (TuneResult.Entry e : r.ranked()) {
            for (TuneResult.Measurement m : e.measurements()) {
                row(h, e, m.stage(), Units.rate(m.breakdown()), "", m.sweep().verdict());
            }
            for (SweepOutcome.Point p : e.holds()) {
                String rate = Units.rate(p.result().targetRate());
                row(h, e, "hold", "", p.held() ? rate : "", (p.held() ? "held " + rate : "missed " + rate)
                        + " req/s for " + Tuner.clock(r.options().hold().toMillis() / 1000.0) + ": p99 "
                        + Units.timeMicros(p.result().percentile(99))
                        + (p.held() ? "" : " (" + String.join("; ", p.violations()) + ")"));
            }
        }
        h.append("</table>\n</body></html>\n");
        return HtmlReport.writePage(dir, h.toString(), charts);
    }

    private static void row(StringBuilder h, TuneResult.Entry e, String round, String breakdown, String held,
                            String verdict) {
        h.append("<tr><td class=\"l\">").append(HtmlReport.esc(e.candidate().label()))
                .append("</td><td class=\"l\">").append(round).append("</td><td>").append(breakdown)
                .append("</td><td>").append(held)
                .append("</td><td class=\"l\">").append(HtmlReport.esc(verdict)).append("</td></tr>\n");
    }
}
