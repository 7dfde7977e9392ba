package dev.larder.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A line chart as inline SVG (no scripts, no fonts, no network): linear or log₁₀ axes, polylines, vertical and
 * horizontal markers, a legend on the right. Coordinates are given in data units; log axes take the data value
 * itself (not its logarithm).
 */
final class SvgChart {

    private record Series(String name, String color, String dash, List<double[]> points, boolean markers) {
    }

    private record Marker(boolean vertical, double at, String color, String label) {
    }

    private static final java.util.concurrent.atomic.AtomicInteger IDS = new java.util.concurrent.atomic.AtomicInteger();
    private static final int LEFT = 72;
    private static final int RIGHT = 190;
    private static final int TOP = 34;
    private static final int BOTTOM = 48;

    private final String title;
    private final int width;
    private final int height;
    private final List<Series> series = new ArrayList<>();
    private final List<Marker> markers = new ArrayList<>();
    private String xTitle = "";
    private String yTitle = "";
    private boolean xLog;
    private boolean yLog;
    private double xMin = Double.NaN;
    private double xMax = Double.NaN;
    private double yMin = Double.NaN;
    private double yMax = Double.NaN;
    private DoubleFunction<String> xLabel = SvgChart::plain;
    private DoubleFunction<String> yLabel = SvgChart::plain;
    private double[] xTicks;

    SvgChart(String title, int width, int height) {
        this.title = title;
        this.width = width;
        this.height = height;
    }

    SvgChart xAxis(String name, boolean log, DoubleFunction<String> label) {
        xTitle = name;
        xLog = log;
        xLabel = label;
        return this;
    }

    SvgChart yAxis(String name, boolean log, DoubleFunction<String> label) {
        yTitle = name;
        yLog = log;
        yLabel = label;
        return this;
    }

    /** Fixes the x range (otherwise it fits the data). */
    SvgChart xRange(double min, double max) {
        xMin = min;
        xMax = max;
        return this;
    }

    SvgChart yRange(double min, double max) {
        yMin = min;
        yMax = max;
        return this;
    }

    /** Explicit x tick positions (data units). */
    SvgChart xTicks(double... ticks) {
        xTicks = ticks.clone();
        return this;
    }

    SvgChart line(String name, String color, String dash, List<double[]> points, boolean markers) {
        series.add(new Series(name, color, dash, points, markers));
        return this;
    }

    SvgChart vertical(double x, String color, String label) {
        markers.add(new Marker(true, x, color, label));
        return this;
    }

    SvgChart horizontal(double y, String color, String label) {
        markers.add(new Marker(false, y, color, label));
        return this;
    }

    String render() {
        fitRanges();
        int plotW = width - LEFT - RIGHT;
        int plotH = height - TOP - BOTTOM;
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n", width, height, width, height));
        s.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>%n",
                width, height));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"bold\">%s</text>%n",
                LEFT, HtmlReport.esc(title)));
        // grid and ticks
        for (double t : yTickValues()) {
            double y = py(t);
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#444\">%s</text>%n", LEFT, y,
                    LEFT + plotW, y, LEFT - 6, y + 4, HtmlReport.esc(yLabel.apply(t))));
        }
        for (double t : xTickValues()) {
            double x = px(t);
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#444\">%s</text>%n", x, TOP, x,
                    TOP + plotH, x, TOP + plotH + 16, HtmlReport.esc(xLabel.apply(t))));
        }
        s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#888\"/>%n", LEFT, TOP, plotW, plotH));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#222\">%s</text>%n",
                LEFT + plotW / 2, height - 10, HtmlReport.esc(xTitle)));
        s.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" fill=\"#222\" "
                + "transform=\"rotate(-90 14 %d)\">%s</text>%n", TOP + plotH / 2, TOP + plotH / 2,
                HtmlReport.esc(yTitle)));
        // clip so out-of-range points do not spill
        String clip = "clip" + IDS.incrementAndGet();
        s.append(String.format(Locale.ROOT, "<defs><clipPath id=\"%s\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
                + "height=\"%d\"/></clipPath></defs>%n", clip, LEFT, TOP - 2, plotW + 2, plotH + 4));
        s.append("<g clip-path=\"url(#").append(clip).append(")\">\n");
        int verticals = 0;
        for (Marker m : markers) {
            if (m.vertical()) {
                double x = px(m.at());
                // Stagger the labels of neighbouring markers so they do not print over each other.
                int labelY = TOP + 12 + 13 * (verticals++ % 4);
                s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
                        + "stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/><text x=\"%.1f\" y=\"%d\" fill=\"%s\">%s"
                        + "</text>%n", x, TOP, x, TOP + plotH, m.color(), x + 4, labelY, m.color(),
                        HtmlReport.esc(m.label())));
            } else {
                double y = py(m.at());
                s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
                        + "stroke-width=\"1\" stroke-dasharray=\"2 3\"/><text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s"
                        + "</text>%n", LEFT, y, LEFT + plotW, y, m.color(), LEFT + 4, y - 3, m.color(),
                        HtmlReport.esc(m.label())));
            }
        }
        for (Series sr : series) {
            StringBuilder pts = new StringBuilder();
            for (double[] p : sr.points()) {
                if (!usable(p[0], xLog) || !usable(p[1], yLog)) {
                    continue;
                }
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px(p[0]), py(p[1])));
            }
            s.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s "
                    + "points=\"%s\"><title>%s</title></polyline>%n", sr.color(),
                    sr.dash() == null ? "" : " stroke-dasharray=\"" + sr.dash() + "\"", pts.toString().strip(),
                    HtmlReport.esc(sr.name())));
            if (sr.markers()) {
                for (double[] p : sr.points()) {
                    if (usable(p[0], xLog) && usable(p[1], yLog)) {
                        s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\" fill=\"%s\"/>",
                                px(p[0]), py(p[1]), sr.color()));
                    }
                }
                s.append('\n');
            }
        }
        s.append("</g>\n");
        // legend
        int ly = TOP + 6;
        for (Series sr : series) {
            if (sr.name() == null || sr.name().isEmpty()) {
                continue;
            }
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\" fill=\"#222\">%s</text>%n", width - RIGHT + 12, ly,
                    width - RIGHT + 36, ly, sr.color(),
                    sr.dash() == null ? "" : " stroke-dasharray=\"" + sr.dash() + "\"", width - RIGHT + 42, ly + 4,
                    HtmlReport.esc(sr.name())));
            ly += 16;
            if (ly > height - 10) {
                break;
            }
        }
        s.append("</svg>\n");
        return s.toString();
    }

    private static boolean usable(double v, boolean log) {
        return !Double.isNaN(v) && !Double.isInfinite(v) && (!log || v > 0);
    }

    private void fitRanges() {
        double x0 = Double.POSITIVE_INFINITY;
        double x1 = Double.NEGATIVE_INFINITY;
        double y0 = Double.POSITIVE_INFINITY;
        double y1 = Double.NEGATIVE_INFINITY;
        for (Series sr : series) {
            for (double[] p : sr.points()) {
                if (usable(p[0], xLog)) {
                    x0 = Math.min(x0, p[0]);
                    x1 = Math.max(x1, p[0]);
                }
                if (usable(p[1], yLog)) {
                    y0 = Math.min(y0, p[1]);
                    y1 = Math.max(y1, p[1]);
                }
            }
        }
        for (Marker m : markers) {
            if (m.vertical() && usable(m.at(), xLog)) {
                x0 = Math.min(x0, m.at());
                x1 = Math.max(x1, m.at());
            } else if (!m.vertical() && usable(m.at(), yLog)) {
                y0 = Math.min(y0, m.at());
                y1 = Math.max(y1, m.at());
            }
        }
        if (Double.isNaN(xMin)) {
            xMin = Double.isInfinite(x0) ? (xLog ? 1 : 0) : x0;
            xMax = Double.isInfinite(x1) ? xMin * 10 + 1 : x1;
        }
        if (Double.isNaN(yMin)) {
            yMin = Double.isInfinite(y0) ? (yLog ? 1 : 0) : y0;
            yMax = Double.isInfinite(y1) ? yMin * 10 + 1 : y1;
        }
        if (xLog) {
            xMin = Math.pow(10, Math.floor(Math.log10(xMin)));
            xMax = Math.pow(10, Math.ceil(Math.log10(xMax)));
        } else if (!(xMax > xMin)) {
            xMax = xMin + 1;
        }
        if (yLog) {
            yMin = Math.pow(10, Math.floor(Math.log10(yMin)));
            yMax = Math.pow(10, Math.ceil(Math.log10(yMax)));
            if (yMax <= yMin) {
                yMax = yMin * 10;
            }
        } else {
            double[] nice = niceRange(Math.min(0, yMin), yMax);
            yMin = nice[0];
            yMax = nice[1];
        }
    }

    private double px(double x) {
        int plotW = width - LEFT - RIGHT;
        double f = xLog ? (Math.log10(x) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))
                : (x - xMin) / (xMax - xMin);
        return LEFT + f * plotW;
    }

    private double py(double y) {
        int plotH = height - TOP - BOTTOM;
        double f = yLog ? (Math.log10(y) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))
                : (y - yMin) / (yMax - yMin);
        return TOP + plotH - f * plotH;
    }

    private List<Double> xTickValues() {
        List<Double> out = new ArrayList<>();
        if (xTicks != null) {
            for (double t : xTicks) {
                if (t >= xMin && t <= xMax) {
                    out.add(t);
                }
            }
            return out;
        }
        return xLog ? decades(xMin, xMax) : linearTicks(xMin, xMax);
    }

    private List<Double> yTickValues() {
        return yLog ? decades(yMin, yMax) : linearTicks(yMin, yMax);
    }

    private static List<Double> decades(double min, double max) {
        List<Double> out = new ArrayList<>();
        for (double v = min; v <= max * 1.0001; v *= 10) {
            out.add(v);
        }
        return out;
    }

    private static List<Double> linearTicks(double min, double max) {
        double step = niceStep((max - min) / 6);
        List<Double> out = new ArrayList<>();
        for (double v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) {
            out.add(Math.abs(v) < step * 1e-9 ? 0 : v);
        }
        return out;
    }

    private static double niceStep(double raw) {
        if (!(raw > 0)) {
            return 1;
        }
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / mag;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    }

    private static double[] niceRange(double min, double max) {
        double step = niceStep((max - min) / 6);
        return new double[] {Math.floor(min / step) * step, Math.max(Math.ceil(max / step) * step, min + step)};
    }

    static String plain(double v) {
        if (Math.abs(v) >= 1_000_000 && v == Math.rint(v)) {
            return Units.rate(v / 1_000_000) + "M";
        }
        if (Math.abs(v) >= 1000 && v == Math.rint(v)) {
            return Units.rate(v / 1000) + "k";
        }
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
