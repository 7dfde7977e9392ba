package dev.larder.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * Number formatting exactly as wrk/wrk2 print it ({@code units.c}), so scripts that parse wrk2 output read ours:
 * times in {@code us}/{@code ms}/{@code s}, counts with {@code k}/{@code M}, bytes with {@code K}/{@code M}/{@code G}.
 */
public final class Units {

    private Units() {
    }

    /** wrk's {@code format_time_us}: {@code 621.00us}, {@code 0.91ms}, {@code 1.16s}, {@code 2.00m}. */
    public static String timeMicros(double micros) {
        if (micros >= 1_000_000.0) {
            return scaled(micros / 1_000_000.0, 60, "s", new String[] {"m", "h"}, 2);
        }
        return scaled(micros, 1000, "us", new String[] {"ms", "s"}, 2);
    }

    /** wrk's {@code format_metric}: {@code 8.79k}, {@code 109.18k}. */
    public static String metric(double n) {
        return scaled(n, 1000, "", new String[] {"k", "M", "G", "T", "P"}, 2);
    }

    /** wrk's {@code format_binary}: {@code 191.09M}, {@code 3.18M} (the caller appends {@code B}). */
    public static String binary(double n) {
        return scaled(n, 1024, "", new String[] {"K", "M", "G", "T", "P"}, 2);
    }

    /** wrk's {@code format_time_s} for the header line: {@code 30s}, {@code 1m}, {@code 2m}. */
    public static String durationHeader(Duration d) {
        return scaled(d.toMillis() / 1000.0, 60, "s", new String[] {"m", "h"}, 0);
    }

    // wrk steps to the next unit once the value reaches 85% of the scale, and never uses the last unit listed.
    private static String scaled(double n, int scale, String base, String[] units, int precision) {
        double amount = n;
        String unit = base;
        for (int i = 0; i + 1 < units.length && amount >= scale * 0.85; i++) {
            amount /= scale;
            unit = units[i];
        }
        return String.format(Locale.ROOT, "%." + precision + "f%s", amount, unit);
    }

    /**
     * wrk's {@code print_units}: right-aligns {@code text} in {@code width} columns, counting a missing second (or
     * first) unit letter as padding on the right, so numbers line up whatever their unit.
     */
    public static String column(String text, int width) {
        int len = text.length();
        int pad = 2;
        if (len > 0 && Character.isLetter(text.charAt(len - 1))) {
            pad--;
        }
        if (len > 1 && Character.isLetter(text.charAt(len - 2))) {
            pad--;
        }
        int w = width - pad;
        String body = text.length() > w ? text.substring(0, w) : text;
        return " ".repeat(Math.max(0, w - body.length())) + body + " ".repeat(pad);
    }

    /** A server's CPU per answer ({@code 21.4us}), or {@code unknown} for NaN. */
    public static String cpuPerAnswer(double micros, String unknown) {
        return Double.isNaN(micros) ? unknown : String.format(Locale.ROOT, "%.1fus", micros);
    }

    /** Axis labels: {@code 10us}, {@code 1ms}, {@code 250ms}, {@code 1s}, {@code 1.5s}. */
    public static String shortTime(double micros) {
        if (micros >= 1_000_000) {
            return trim(micros / 1_000_000) + "s";
        }
        if (micros >= 1000) {
            return trim(micros / 1000) + "ms";
        }
        return trim(micros) + "us";
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v)
                .replaceAll("0+$", "").replaceAll("\\.$", "");
    }

    /** A latency in microseconds as milliseconds with three decimals, the unit of .hgrm files and the report. */
    public static String millis(double micros) {
        return String.format(Locale.ROOT, "%.3f", micros / 1000.0);
    }

    /** A rate for humans: {@code 12000} → {@code 12000}, {@code 1500.5} → {@code 1500.5}. */
    public static String rate(double rate) {
        if (rate == Math.rint(rate)) {
            return Long.toString((long) rate);
        }
        return String.format(Locale.ROOT, "%.1f", rate);
    }
}
