package dev.larder.cli.deploy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** docker-compose.yml read as plain maps, with the few lookups the deployment tests share. */
final class Compose {

    static final String FILE = "docker-compose.yml";
    /** The image every Larder service runs (built from the Dockerfile). */
    static final String LARDER_IMAGE = "larder:local";

    private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h)");

    private final Map<String, Object> root;

    Compose(Map<String, Object> root) {
        this.root = root;
    }

    static Compose load() {
        return new Compose(Repo.yaml(FILE));
    }

    Map<String, Object> root() {
        return root;
    }

    Map<String, Object> services() {
        return map(root, "services");
    }

    Map<String, Object> service(String name) {
        Map<String, Object> service = map(services(), name);
        if (service == null) {
            throw new AssertionError("no service " + name + " in " + FILE);
        }
        return service;
    }

    /** Services running the Larder image, in file order. */
    List<String> larderServices() {
        List<String> names = new ArrayList<>();
        services().forEach((name, service) -> {
            if (LARDER_IMAGE.equals(asMap(service).get("image"))) {
                names.add(name);
            }
        });
        return names;
    }

    List<String> profiles(String service) {
        return strings(service(service).get("profiles"));
    }

    /** A service's environment as strings (the map form; YAML numbers become their text). */
    Map<String, String> environment(String service) {
        Map<String, String> env = new LinkedHashMap<>();
        Object raw = service(service).get("environment");
        if (raw instanceof Map<?, ?> m) {
            m.forEach((k, v) -> env.put(String.valueOf(k), v == null ? "" : String.valueOf(v)));
        } else if (raw instanceof List<?> list) {
            for (Object entry : list) {
                String s = String.valueOf(entry);
                int eq = s.indexOf('=');
                env.put(eq < 0 ? s : s.substring(0, eq), eq < 0 ? "" : s.substring(eq + 1));
            }
        }
        return env;
    }

    /** Short-syntax volume entries {@code source:target[:mode]} of a service. */
    List<String[]> volumes(String service) {
        List<String[]> volumes = new ArrayList<>();
        for (String entry : strings(service(service).get("volumes"))) {
            volumes.add(entry.split(":"));
        }
        return volumes;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        return value == null ? null : (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object value) {
        return (Map<String, Object>) value;
    }

    static List<String> strings(Object value) {
        List<String> strings = new ArrayList<>();
        if (value instanceof List<?> list) {
            list.forEach(v -> strings.add(String.valueOf(v)));
        } else if (value != null) {
            strings.add(String.valueOf(value));
        }
        return strings;
    }

    /** Compose and Larder durations: {@code 1m30s}, {@code 8s}, {@code 500ms}. */
    static Duration duration(String text) {
        Matcher m = DURATION_PART.matcher(text.strip());
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find() && m.start() == end) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            });
            end = m.end();
        }
        if (end == 0 || end != text.strip().length()) {
            throw new IllegalArgumentException("not a duration: " + text);
        }
        return total;
    }
}
