package dev.larder.bench;

/** The {@code name=value,name=value} lists of {@code --mix} and {@code bench tail --rates}. */
final class NamedValues {

    private NamedValues() {
    }

    /**
     * Calls {@code each} with every non-empty comma-separated part (trimmed), the name before its {@code =} as
     * written and the value after it trimmed; a part without {@code =} is refused with {@code missingEquals}.
     */
    static void parse(String text, String flag, String missingEquals, Part each) {
        for (String part : text.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException(flag + ": '" + p + "' (" + missingEquals + ")");
            }
            each.accept(p, p.substring(0, eq), p.substring(eq + 1).trim());
        }
    }

    /** One {@code name=value} part. */
    interface Part {
        void accept(String part, String name, String value);
    }
}
