package dev.larder.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The kinds of phase the tail benchmark runs: writes, reads, or the mix. */
public enum TailPhase {
    /** PUTs of new sequential ids. */
    PUT,
    /** GETs uniform over the ids written so far (or zipfian over {@code --keys}). */
    GET,
    /** The {@code --mix} (default {@code get=90,put=10}). */
    MIX;

    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code put,get,mix,put,get}. */
    public static List<TailPhase> parseList(String text) {
        List<TailPhase> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            TailPhase phase = null;
            for (TailPhase t : values()) {
                if (t.flag().equalsIgnoreCase(p)) {
                    phase = t;
                }
            }
            if (phase == null) {
                throw new IllegalArgumentException("phases: '" + p + "' (expected put, get or mix, e.g. "
                        + "put,get,mix,put,get)");
            }
            out.add(phase);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("phases: '" + text + "' (expected at least one of put, get, mix)");
        }
        return List.copyOf(out);
    }
}
