package dev.larder.bench;

import java.util.Locale;

/** A minimal streaming JSON writer (no dependency for one summary file). */
final class Json {

    private final StringBuilder sb = new StringBuilder();
    private final boolean[] first = new boolean[64];
    private int depth;
    private boolean afterKey;

    Json beginObject() {
        value();
        sb.append('{');
        first[++depth] = true;
        return this;
    }

    Json endObject() {
        depth--;
        newline();
        sb.append('}');
        return this;
    }

    Json beginArray() {
        value();
        sb.append('[');
        first[++depth] = true;
        return this;
    }

    Json endArray() {
        depth--;
        newline();
        sb.append(']');
        return this;
    }

    Json key(String k) {
        separator();
        string(k);
        sb.append(": ");
        afterKey = true;
        return this;
    }

    Json value(String s) {
        value();
        if (s == null) {
            sb.append("null");
        } else {
            string(s);
        }
        return this;
    }

    Json value(double d) {
        value();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            sb.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            sb.append((long) d);
        } else {
            sb.append(String.format(Locale.ROOT, "%.4f", d).replaceAll("0+$", "").replaceAll("\\.$", ""));
        }
        return this;
    }

    Json value(long v) {
        value();
        sb.append(v);
        return this;
    }

    Json value(boolean b) {
        value();
        sb.append(b);
        return this;
    }

    Json nullValue() {
        value();
        sb.append("null");
        return this;
    }

    Json field(String k, String v) {
        return key(k).value(v);
    }

    Json field(String k, double v) {
        return key(k).value(v);
    }

    Json field(String k, long v) {
        return key(k).value(v);
    }

    Json field(String k, boolean v) {
        return key(k).value(v);
    }

    private void value() {
        if (afterKey) {
            afterKey = false;
            return;
        }
        if (depth > 0) {
            separator();
        }
    }

    private void separator() {
        if (!first[depth]) {
            sb.append(',');
        }
        first[depth] = false;
        newline();
    }

    private void newline() {
        sb.append('\n');
        sb.append("  ".repeat(Math.max(0, depth)));
    }

    private void string(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    @Override
    public String toString() {
        return sb.toString().strip();
    }
}
