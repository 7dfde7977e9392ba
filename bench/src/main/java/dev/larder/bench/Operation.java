package dev.larder.bench;

import java.util.Locale;

/** One kind of request a workload sends. */
public enum Operation {
    /** {@code PUT /v0/entity?id=kN} with a value of {@code --value-size} bytes (expects 201). */
    PUT,
    /** {@code GET /v0/entity?id=kN} (expects 200, or 404 for a key that was never written). */
    GET,
    /** {@code DELETE /v0/entity?id=kN} (expects 202). */
    DELETE,
    /** {@code GET /v0/entities?start=kN&end=kN:}: every key that starts with {@code kN} (expects 200, chunked). */
    RANGE,
    /** {@code GET} the target URL's own path and query, unchanged: what plain wrk/wrk2 do without a script. */
    URL;

    /** {@code put}, {@code get}, ... as typed on the command line. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Operation fromFlag(String value) {
        for (Operation op : values()) {
            if (op.flag().equalsIgnoreCase(value.trim())) {
                return op;
            }
        }
        throw new IllegalArgumentException("'" + value + "' (expected one of put, get, delete, range, url)");
    }
}
