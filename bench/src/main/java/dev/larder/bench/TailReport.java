package dev.larder.bench;

import static dev.larder.bench.HtmlReport.esc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The {@code --report DIR} page of a tail run: latency over time across all phases (per-second p99 and max, the
 * phase switches marked, nginx beside it), answers per second against the target, the phase table, capacities and
 * sustainable rates; {@code .hgrm} files of every phase beside it.
 */
final class TailReport {

    private static final String LARDER = HtmlReport.color(0);
    private static final String NGINX = HtmlReport.color(2);

    private TailReport() {
    }

    static Path write(Path dir, TailResult r) throws IOException {
        Path hgrm = dir.resolve("hgrm");
        Files.createDirectories(hgrm);
        for (int i = 0; i < r.phases().size(); i++) {
            TailResult.PhaseResult p = r.phases().get(i);
            Hgrm.write(hgrm.resolve(hgrmName("larder", i, p)), p.larder());
            if (p.nginx() != null) {
                Hgrm.write(hgrm.resolve(hgrmName("nginx", i, p)), p.nginx());
            }
        }
        Map<String, String> charts = new LinkedHashMap<>();
        return HtmlReport.writePage(dir, render(r, charts), charts);
    }

    static String hgrmName(String who, int index, TailResult.PhaseResult p) {
        return who + "-" + (index + 1) + "-" + p.kind().flag() + ".hgrm";
    }

    static String render(TailResult r, Map<String, String> charts) {
        TailOptions tail = r.tail();
        long bound = tail.slo().thresholdMicros();
        StringBuilder h = HtmlReport.pageHead("larder bench tail report", r.started().toString(), r.machine(),
                r.options().commandLine(), r.options().describeConnections() + "\n" + tail.describe());
        h.append("<h2>Server</h2>\n<pre>").append(esc(r.label())).append(" ").append(esc(r.url().toString()))
                .append('\n');
        for (String s : r.settings()) {
            h.append(esc(s)).append('\n');
        }
        if (r.prefill() != null) {
            h.append("prefill: ").append(esc(r.prefill())).append('\n');
        }
        h.append("</pre>\n");
        h.append("<h2>Latency over time</h2>\n<p>Corrected latency (from the time each request was due) of the answers "
                + "arriving in each second, over all phases of one session on the same connections. Dashed lines: "
                + "phase switches.</p>\n");
        h.append(HtmlReport.chart(charts, "latency-over-time", latencyOverTime(r, bound)));
        h.append(HtmlReport.chart(charts, "answers-over-time", answersOverTime(r)));
        if (r.phases().stream().anyMatch(p -> !Double.isNaN(p.larder().serverCores()))) {
            h.append(HtmlReport.chart(charts, "cpu-over-time", cpuOverTime(r)));
        }
        h.append("<h2>Phases</h2>\n");
        h.append(phaseTable(r, bound));
        h.append(HtmlReport.chart(charts, "phase-percentiles", percentiles(r)));
        if (r.nginxOwnLoad() != null) {
            h.append(ownLoadTable(r, bound));
        }
        h.append("<h2>Capacity</h2>\n<table><tr><th class=\"l\">op</th><th>saturated (closed loop), req/s</th>"
                + "<th>sustainable, req/s</th><th>resolution</th><th class=\"l\">trials</th></tr>\n");
        // A search that ran for the other op only was narrowed on purpose; none at all was not asked for.
        String notSearched = r.sustainable().isEmpty() ? "not measured (--sustainable)"
                : "not searched (--sustainable-ops)";
        capacityRow(h, "PUT", r.putCapacity().achievedRate(), r.sustainable(TailPhase.PUT), notSearched);
        capacityRow(h, "GET", r.getCapacity().achievedRate(), r.sustainable(TailPhase.GET), notSearched);
        if (!r.nginxSustainable().isEmpty()) {
            for (TailPhase op : List.of(TailPhase.PUT, TailPhase.GET)) {
                TailResult.SustainableResult n = r.nginxSustainable(op);
                if (n != null) {
                    capacityRow(h, "nginx " + op, n.capacity(), n, "");
                }
            }
        } else if (r.nginxCapacity() != null) {
            h.append(String.format(Locale.ROOT, "<tr><td class=\"l\">nginx GET</td><td>%.0f</td><td></td><td></td>"
                    + "<td></td></tr>%n", r.nginxCapacity().achievedRate()));
        }
        h.append("</table>\n");
        if (r.machineSpeed() != null) {
            h.append("<p>Machine speed: ").append(esc(r.machineSpeed().describe())).append(".</p>\n");
            for (Warning w : r.machineSpeedWarnings()) {
                h.append("<div class=\"warn\">").append(esc(w.message())).append("</div>\n");
            }
        }
        if (r.warmup() != null) {
            h.append(String.format(Locale.ROOT, "<p>Warm-up: PUT closed loop, %d answers in %.0f s (%.0f req/s).</p>%n",
                    r.warmup().completed(), r.warmup().seconds(), r.warmup().achievedRate()));
        }
        h.append("<ul>\n");
        for (int i = 0; i < r.phases().size(); i++) {
            TailResult.PhaseResult p = r.phases().get(i);
            h.append("<li>").append(i + 1).append(' ').append(p.kind()).append(": <a href=\"hgrm/")
                    .append(esc(hgrmName("larder", i, p))).append("\">.hgrm</a>");
            if (p.nginx() != null) {
                h.append(" &middot; <a href=\"hgrm/").append(esc(hgrmName("nginx", i, p))).append("\">nginx .hgrm</a>");
            }
            for (Warning w : p.larder().warnings()) {
                h.append("<div class=\"warn\">").append(esc(w.message())).append("</div>");
            }
            h.append("</li>\n");
        }
        h.append("</ul>\n</body></html>\n");
        return h.toString();
    }

    /** The control: nginx at the same fraction of its own capacities. */
    private static String ownLoadTable(TailResult r, long bound) {
        TailResult.OwnLoad own = r.nginxOwnLoad();
        StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "<h3>Control: nginx at %.0f%% of its own "
                        + "capacity</h3>%n<p>nginx's closed-loop capacity PUT %.0f, GET %.0f req/s; the same phases at "
                        + "%.0f%% of those. Phases with p99 within the SLO: %s %d of %d, nginx %d of %d. A phase both "
                        + "miss is one this machine and generator miss at that load whatever the server.</p>%n",
                100 * r.tail().load(), own.putCapacity().achievedRate(), own.getCapacity().achievedRate(),
                100 * r.tail().load(), esc(r.label()), r.phasesWithin(bound), r.phases().size(),
                own.phasesWithin(bound), own.phases().size()));
        h.append("<table><tr><th>#</th><th class=\"l\">phase</th><th>rate</th><th>achieved</th><th>p50</th>"
                + "<th>p99</th><th>p99.9</th><th>max</th><th>seconds p99 &gt; SLO</th><th>CPU per answer</th></tr>\n");
        for (int i = 0; i < own.phases().size(); i++) {
            TailResult.OwnLoadPhase p = own.phases().get(i);
            RunResult n = p.result();
            h.append(String.format(Locale.ROOT, "<tr><td>%d</td><td class=\"l\">%s</td><td>%s</td><td>%.1f</td>"
                            + "<td>%s</td><td class=\"%s\">%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s</td></tr>%n",
                    i + 1, p.kind(), Units.rate(p.rate()), n.achievedRate(), Units.timeMicros(n.percentile(50)),
                    n.percentile(99) > bound ? "miss" : "ok", Units.timeMicros(n.percentile(99)),
                    Units.timeMicros(n.percentile(99.9)), Units.timeMicros(n.corrected().getMaxValue()),
                    p.secondsAbove(bound), Units.cpuPerAnswer(n.serverMicrosPerRequest(), "-")));
        }
        return h.append("</table>\n").toString();
    }

    private static void capacityRow(StringBuilder h, String name, double capacity, TailResult.SustainableResult s,
                                    String notSearched) {
        h.append(String.format(Locale.ROOT, "<tr><td class=\"l\">%s</td><td>%.0f</td>", esc(name), capacity));
        if (s == null) {
            h.append("<td>").append(notSearched).append("</td><td></td><td></td></tr>\n");
            return;
        }
        StringBuilder trials = new StringBuilder();
        for (SweepOutcome.Point p : s.trials()) {
            trials.append(trials.length() > 0 ? ", " : "").append(Units.rate(p.result().targetRate()))
                    .append(p.held() ? " held" : " missed");
            if (s.measuredAgain().stream().anyMatch(m -> m.result().targetRate() == p.result().targetRate())) {
                trials.append(" (measured again after a miss while the generator lagged or the host took CPU time)");
            }
        }
        h.append(String.format(Locale.ROOT, "<td>%s</td><td>%s</td><td class=\"l\">%s</td></tr>%n",
                s.rateText(), s.resolutionText(), esc(trials.toString())));
    }

    private static String phaseTable(TailResult r, long bound) {
        StringBuilder h = new StringBuilder("<table><tr><th>#</th><th class=\"l\">phase</th><th>rate</th>"
                + "<th>achieved</th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th><th>seconds p99 &gt; SLO</th>"
                + "<th>of those, host stole &gt; " + Math.round(Timeline.STOLEN_SHARE * 100) + "%</th>"
                + "<th>recovery</th><th>switch cost (s of requests)</th><th>nginx p99</th><th>ratio</th>"
                + "<th>CPU per answer</th><th>over saturation's</th><th>nginx CPU per answer</th></tr>\n");
        for (int i = 0; i < r.phases().size(); i++) {
            TailResult.PhaseResult p = r.phases().get(i);
            RunResult l = p.larder();
            int recover = p.recoverySeconds(bound);
            boolean miss = l.percentile(99) > bound;
            h.append(String.format(Locale.ROOT, "<tr><td>%d</td><td class=\"l\">%s</td><td>%s</td><td>%.1f</td>"
                            + "<td>%s</td><td class=\"%s\">%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s</td>"
                            + "<td>%s</td><td>%.3f</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>%n",
                    i + 1, p.kind(), Units.rate(p.rate()),
                    l.achievedRate(), Units.timeMicros(l.percentile(50)), miss ? "miss" : "ok",
                    Units.timeMicros(l.percentile(99)), Units.timeMicros(l.percentile(99.9)),
                    Units.timeMicros(l.corrected().getMaxValue()), p.secondsAbove(bound),
                    p.secondsAboveStolenText(bound), recover < 0 ? "never" : recover + " s",
                    p.switchCostSeconds(r.tail().switchWindow()),
                    p.nginx() == null ? "" : Units.timeMicros(p.nginx().percentile(99)),
                    p.p99RatioText(), Units.cpuPerAnswer(p.serverMicrosPerRequest(), "-"),
                    r.costOverSaturatedText(p),
                    p.nginx() == null ? "" : Units.cpuPerAnswer(p.nginx().serverMicrosPerRequest(), "")));
        }
        return h.append("</table>\n").toString();
    }

    private static String latencyOverTime(TailResult r, long bound) {
        SvgChart chart = new SvgChart("Latency over time: per-second p99 (solid) and max (dashed)", 980, 440)
                .xAxis("seconds since the first phase", false, SvgChart::plain)
                .yAxis("latency", true, Units::shortTime);
        chart.line(r.label() + " p99", LARDER, null, perSecond(r, false, Timeline.Second::p99), false);
        chart.line(r.label() + " max", LARDER, "5 4", perSecond(r, false, Timeline.Second::max), false);
        if (r.phases().stream().anyMatch(p -> p.nginx() != null)) {
            chart.line("nginx p99", NGINX, null, perSecond(r, true, Timeline.Second::p99), false);
            chart.line("nginx max", NGINX, "5 4", perSecond(r, true, Timeline.Second::max), false);
        }
        chart.horizontal(bound, "#b00", "SLO " + Units.timeMicros(bound));
        markPhases(chart, r);
        return chart.render();
    }

    private static String answersOverTime(TailResult r) {
        SvgChart chart = new SvgChart("Answers per second against the target rate (grey)", 980, 360)
                .xAxis("seconds since the first phase", false, SvgChart::plain)
                .yAxis("answers/s", false, SvgChart::plain);
        List<double[]> target = new ArrayList<>();
        for (TailResult.PhaseResult p : r.phases()) {
            target.add(new double[] {p.startSeconds(), p.rate()});
            target.add(new double[] {p.startSeconds() + p.larder().seconds(), p.rate()});
        }
        chart.line("target", "#999", "4 4", target, false);
        chart.line(r.label(), LARDER, null, perSecond(r, false, s -> s.completed()), false);
        if (r.phases().stream().anyMatch(p -> p.nginx() != null)) {
            chart.line("nginx", NGINX, null, perSecond(r, true, s -> s.completed()), false);
        }
        markPhases(chart, r);
        return chart.render();
    }

    // Beside the latency chart: a second at a full core is a queue, a second with the background or the host's
    // steal up is a stall, and the two want different fixes.
    private static String cpuOverTime(TailResult r) {
        SvgChart chart = new SvgChart("The server's CPU per second (cores), its lower-priority background part, and the "
                + "host's steal (share of the machine's and of the server's CPUs' time)", 980, 360)
                .xAxis("seconds since the first phase", false, SvgChart::plain)
                .yAxis("cores / share", false, v -> String.format(Locale.ROOT, "%.2f", v));
        chart.line(r.label() + " cores", LARDER, null, perSecond(r, false, s -> s.machine().serverCores()), false);
        chart.line(r.label() + " background", LARDER, "5 4",
                perSecond(r, false, s -> s.machine().serverBackgroundCores()), false);
        chart.line("host steal (machine)", "#b00", "2 3", perSecond(r, false, s -> s.machine().hostSteal()), false);
        chart.line("host steal (server's CPUs)", "#b00", null,
                perSecond(r, false, s -> s.machine().serverCpusSteal()), false);
        markPhases(chart, r);
        return chart.render();
    }

    private static String percentiles(TailResult r) {
        SvgChart chart = new SvgChart("Latency by percentile, each phase", 980, 440)
                .xAxis("percentile", true, HtmlReport::percentileLabel)
                .yAxis("latency", true, Units::shortTime)
                .xRange(1, 1e6)
                .xTicks(1, 10, 100, 1e3, 1e4, 1e5, 1e6);
        for (int i = 0; i < r.phases().size(); i++) {
            TailResult.PhaseResult p = r.phases().get(i);
            chart.line((i + 1) + " " + p.kind() + " " + Units.rate(p.rate()), HtmlReport.color(i + 1), null,
                    HtmlReport.percentilePoints(p.larder().corrected()), false);
        }
        return chart.render();
    }

    private static void markPhases(SvgChart chart, TailResult r) {
        for (TailResult.PhaseResult p : r.phases()) {
            chart.vertical(p.startSeconds(), "#777", p.kind() + " " + Units.rate(p.rate()));
        }
    }

    // One point per second in the middle of it, on the session's time axis.
    private static List<double[]> perSecond(TailResult r, boolean nginx, ToDoubleFunction<Timeline.Second> value) {
        List<double[]> pts = new ArrayList<>();
        for (TailResult.PhaseResult p : r.phases()) {
            RunResult run = nginx ? p.nginx() : p.larder();
            if (run == null) {
                continue;
            }
            List<Timeline.Second> seconds = run.timeline().seconds();
            for (int i = 0; i < seconds.size(); i++) {
                pts.add(new double[] {p.startSeconds() + i + 0.5, value.applyAsDouble(seconds.get(i))});
            }
        }
        return pts;
    }
}
