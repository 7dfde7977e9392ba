package dev.larder.server.admin;

import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A validated {@code /debug/profile?event=cpu|alloc|lock|wall&seconds=N[&format=html|collapsed]}.
 *
 * @param event   what to sample
 * @param seconds how long, 1..{@value #MAX_SECONDS}
 * @param html    a self-contained HTML flame graph ({@code true}, the default) or collapsed stacks
 */
record ProfileRequest(Event event, int seconds, boolean html) {

    static final int MAX_SECONDS = 300;

    /** The events the endpoint offers, with async-profiler's name for each. */
    enum Event {
        CPU("cpu"), ALLOC("alloc"), LOCK("lock"), WALL("wall");

        final String name;

        Event(String name) {
            this.name = name;
        }
    }

    /** @throws IllegalArgumentException naming the bad parameter and what is expected */
    static ProfileRequest parse(String uri) {
        Map<String, List<String>> params = new QueryStringDecoder(uri).parameters();
        String eventName = one(params, "event", "cpu").toLowerCase(Locale.ROOT);
        Event event = null;
        for (Event e : Event.values()) {
            if (e.name.equals(eventName)) {
                event = e;
            }
        }
        if (event == null) {
            throw new IllegalArgumentException("event: " + eventName + " (expected: cpu, alloc, lock or wall)");
        }
        String secondsText = one(params, "seconds", "10");
        int seconds;
        try {
            seconds = Integer.parseInt(secondsText);
        } catch (NumberFormatException e) {
            seconds = -1;
        }
        if (seconds < 1 || seconds > MAX_SECONDS) {
            throw new IllegalArgumentException("seconds: " + secondsText + " (expected: 1.." + MAX_SECONDS + ")");
        }
        String format = one(params, "format", "html").toLowerCase(Locale.ROOT);
        if (!format.equals("html") && !format.equals("collapsed")) {
            throw new IllegalArgumentException("format: " + format + " (expected: html or collapsed)");
        }
        return new ProfileRequest(event, seconds, format.equals("html"));
    }

    private static String one(Map<String, List<String>> params, String name, String fallback) {
        List<String> values = params.get(name);
        return values == null || values.isEmpty() ? fallback : values.get(0);
    }
}
