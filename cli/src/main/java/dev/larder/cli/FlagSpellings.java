package dev.larder.cli;

import dev.larder.storage.TableWarming;
import java.util.StringJoiner;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * How {@code serve} reads an option whose value is one of a few modes: by the spelling the mode's own {@code flag()}
 * gives it ({@code caller-runs}, {@code read-back}), or by its Java name, ignoring case. picocli's enum converter knows
 * only the Java names. Parsing is the command line's business, so it lives here once and not in each enum.
 */
final class FlagSpellings {

    private FlagSpellings() {
    }

    /** Makes {@code commandLine} and its subcommands read {@code type}'s constants by {@code flag}'s spelling or name. */
    static <E extends Enum<E>> void register(CommandLine commandLine, Class<E> type, Function<E, String> flag) {
        commandLine.registerConverter(type, value -> parse(type, flag, value));
    }

    /**
     * The constant of {@code type} spelled {@code value}.
     *
     * @throws IllegalArgumentException naming every spelling, in declaration order, for any other value
     */
    static <E extends Enum<E>> E parse(Class<E> type, Function<E, String> flag, String value) {
        StringJoiner expected = new StringJoiner(", ");
        for (E constant : type.getEnumConstants()) {
            if (flag.apply(constant).equalsIgnoreCase(value) || constant.name().equalsIgnoreCase(value)) {
                return constant;
            }
            expected.add(flag.apply(constant));
        }
        throw new IllegalArgumentException("expected one of " + expected + " but was '" + value + "'");
    }

    /**
     * {@code --warm-new-tables}, which also takes the boolean it was before it had modes: {@code true} is
     * {@link TableWarming#READ_BACK}, {@code false} {@link TableWarming#OFF}, so existing command lines and
     * {@code LARDER_WARM_NEW_TABLES} settings keep their meaning.
     */
    static TableWarming tableWarming(String value) {
        if ("true".equalsIgnoreCase(value)) {
            return TableWarming.READ_BACK;
        }
        if ("false".equalsIgnoreCase(value)) {
            return TableWarming.OFF;
        }
        return parse(TableWarming.class, TableWarming::flag, value);
    }
}
