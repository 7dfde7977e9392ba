package dev.larder.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What {@code larder tune} searches: six server flags, each with a few values around the default. A full grid of
 * them is 4 x 4 x 3 x 2 x 3 x 3 = 864 servers; the search ({@link Tuner}) screens one dimension at a time instead.
 */
public final class TuneSpace {

    /** A flag of {@code larder serve} that the search varies. */
    public enum Dimension {
        REJECTION("rejection", "--rejection", List.of("adaptive", "discard-oldest", "caller-runs")),
        WORKERS("workers", "--workers", List.of("1", "4", "8")),
        QUEUE_SIZE("queue-size", "--queue-size", List.of("16", "1024")),
        IO_THREADS("io-threads", "--io-threads", List.of("2")),
        MAX_QUEUE_DELAY("max-queue-delay", "--max-queue-delay", List.of("5ms", "20ms")),
        // 64 by default: the loop answers from memory up to 64 requests a worker would take. 0 hands every request
        // over, which a workload of cold reads or stalled writes may prefer; 16, the default before session 30,
        // hands a burst after a pause of the loop to the workers, which more cores than the benchmark's one may
        // run in parallel. Both are searched.
        INLINE_BATCH("inline-batch", "--inline-batch", List.of("0", "16"));

        final String name;
        final String flag;
        /** The values tried besides the default, most promising first (a small budget tries the first ones). */
        final List<String> alternatives;

        Dimension(String name, String flag, List<String> alternatives) {
            this.name = name;
            this.flag = flag;
            this.alternatives = alternatives;
        }

        /** {@code LARDER_QUEUE_SIZE}: the environment variable {@code larder serve} reads for this flag. */
        String env() {
            return "LARDER_" + name.toUpperCase(Locale.ROOT).replace('-', '_');
        }

        static Set<Dimension> parse(String list) {
            Set<Dimension> out = EnumSet.noneOf(Dimension.class);
            for (String part : list.split(",")) {
                String p = part.trim();
                if (p.isEmpty()) {
                    continue;
                }
                Dimension found = null;
                for (Dimension d : values()) {
                    if (d.name.equalsIgnoreCase(p)) {
                        found = d;
                    }
                }
                if (found == null) {
                    throw new IllegalArgumentException("dimensions: '" + p + "' (expected: rejection, workers, "
                            + "queue-size, io-threads, max-queue-delay, inline-batch)");
                }
                out.add(found);
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException("dimensions: '" + list + "' (expected: at least one)");
            }
            return out;
        }
    }

    /** One server configuration: the flags that differ from the default (none: the default itself). */
    record Candidate(Map<Dimension, String> flags) {

        static final Candidate DEFAULT = new Candidate(Map.of());

        Candidate {
            flags = Collections.unmodifiableMap(flags.isEmpty() ? new EnumMap<>(Dimension.class)
                    : new EnumMap<>(flags));
        }

        boolean isDefault() {
            return flags.isEmpty();
        }

        /** The flags for {@code larder serve}. */
        List<String> args() {
            List<String> out = new ArrayList<>();
            flags.forEach((d, v) -> {
                out.add(d.flag);
                out.add(v);
            });
            return out;
        }

        /** {@code --workers 4 --rejection adaptive}, or {@code default}. */
        String label() {
            return isDefault() ? "default" : String.join(" ", args());
        }

        /** The same as environment variables: {@code LARDER_WORKERS=4 LARDER_REJECTION=adaptive}. */
        String env() {
            List<String> out = new ArrayList<>();
            flags.forEach((d, v) -> out.add(d.env() + "=" + v));
            return String.join(" ", out);
        }

        /** This candidate with {@code d} set to {@code value}. */
        Candidate with(Dimension d, String value) {
            Map<Dimension, String> f = new EnumMap<>(Dimension.class);
            f.putAll(flags);
            f.put(d, value);
            return new Candidate(f);
        }
    }

    private TuneSpace() {
    }

    /**
     * The screening round: every alternative value of every dimension, one at a time, the others at their default,
     * taken round-robin over the dimensions (so that a budget that cuts the list short still sees each dimension).
     */
    static List<Candidate> screening(Set<Dimension> dimensions) {
        List<Candidate> out = new ArrayList<>();
        for (int i = 0; ; i++) {
            boolean any = false;
            for (Dimension d : dimensions) {
                if (i < d.alternatives.size()) {
                    out.add(Candidate.DEFAULT.with(d, d.alternatives.get(i)));
                    any = true;
                }
            }
            if (!any) {
                return out;
            }
        }
    }

    /** The size of the full grid over {@code dimensions}, for the report. */
    static int gridSize(Set<Dimension> dimensions) {
        int n = 1;
        for (Dimension d : dimensions) {
            n *= d.alternatives.size() + 1;
        }
        return n;
    }
}
