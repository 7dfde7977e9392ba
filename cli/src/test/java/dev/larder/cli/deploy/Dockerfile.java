package dev.larder.cli.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Just enough of Dockerfile syntax to check ours: instructions with their line continuations joined and comments
 * dropped, grouped by build stage (the ARGs before the first FROM apart, as global build args); ENV pairs and
 * exec-form (JSON) arguments decoded.
 */
final class Dockerfile {

    /** One instruction: {@code keyword} upper-case, {@code arguments} the rest of the (joined) line. */
    record Instruction(String keyword, String arguments) {
    }

    private final Map<String, String> globalArgs;
    private final List<List<Instruction>> stages;

    private Dockerfile(Map<String, String> globalArgs, List<List<Instruction>> stages) {
        this.globalArgs = globalArgs;
        this.stages = stages;
    }

    static Dockerfile parse(String text) {
        Map<String, String> globalArgs = new LinkedHashMap<>();
        List<List<Instruction>> stages = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || (trimmed.isEmpty() && current.isEmpty())) {
                continue; // comments may also sit between continuation lines
            }
            if (trimmed.endsWith("\\")) {
                current.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            current.append(trimmed);
            String joined = current.toString().strip();
            current.setLength(0);
            if (joined.isEmpty()) {
                continue;
            }
            int space = joined.indexOf(' ');
            String keyword = (space < 0 ? joined : joined.substring(0, space)).toUpperCase(Locale.ROOT);
            String arguments = space < 0 ? "" : joined.substring(space + 1).strip();
            if (keyword.equals("FROM")) {
                stages.add(new ArrayList<>());
            }
            if (stages.isEmpty() && keyword.equals("ARG")) {
                int eq = arguments.indexOf('=');
                globalArgs.put(eq < 0 ? arguments : arguments.substring(0, eq), eq < 0 ? null : arguments.substring(eq + 1));
                continue;
            }
            if (stages.isEmpty()) {
                throw new IllegalArgumentException("instruction before the first FROM: " + joined);
            }
            stages.get(stages.size() - 1).add(new Instruction(keyword, arguments));
        }
        return new Dockerfile(globalArgs, stages);
    }

    /** The build args declared before the first FROM (usable in FROM), with their defaults (null: none). */
    Map<String, String> globalArgs() {
        return globalArgs;
    }

    List<List<Instruction>> stages() {
        return stages;
    }

    List<Instruction> finalStage() {
        return stages.get(stages.size() - 1);
    }

    /** Every instruction with this keyword in {@code stage}. */
    static List<String> all(List<Instruction> stage, String keyword) {
        return stage.stream().filter(i -> i.keyword().equals(keyword)).map(Instruction::arguments).toList();
    }

    /** The only instruction with this keyword in {@code stage}; fails when there is none or more than one. */
    static String single(List<Instruction> stage, String keyword) {
        List<String> found = all(stage, keyword);
        if (found.size() != 1) {
            throw new AssertionError("expected exactly one " + keyword + " in the stage, found " + found);
        }
        return found.get(0);
    }

    /** All ENV pairs of {@code stage}, later ones winning ({@code KEY=value}, quotes removed). */
    static Map<String, String> env(List<Instruction> stage) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String arguments : all(stage, "ENV")) {
            for (String word : words(arguments)) {
                int eq = word.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("ENV without KEY=value form: " + arguments);
                }
                env.put(word.substring(0, eq), word.substring(eq + 1));
            }
        }
        return env;
    }

    /** Exec-form arguments: {@code ["java", "-jar", ...]}. */
    static List<String> execForm(String arguments) {
        try {
            return new ObjectMapper().readValue(arguments, new TypeReference<List<String>>() { });
        } catch (IOException e) {
            throw new UncheckedIOException("not exec (JSON) form: " + arguments, e);
        }
    }

    /** Shell-like words: whitespace separates, double or single quotes group (and are removed). */
    static List<String> words(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        char quote = 0;
        boolean inWord = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unbalanced quote in: " + text);
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
