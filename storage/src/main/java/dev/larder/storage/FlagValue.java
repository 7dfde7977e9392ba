package dev.larder.storage;

import java.util.StringJoiner;

/**
 * A value of a command-line option that is one of a few named modes: the enum constant knows how the flag spells
 * it, and {@link #parse} is the one place a spelling is read back, so every such option takes the same forms and
 * names the same alternatives when it is given a wrong one.
 */
public interface FlagValue {

    /** The spelling used on the command line (and in metric tags, where the value is one). */
    String flag();

    /**
     * The constant of {@code type} spelled {@code value}, by its flag or by its Java name, ignoring case.
     *
     * @throws IllegalArgumentException naming the flag spellings, for any other value
     */
    static <E extends Enum<E> & FlagValue> E parse(Class<E> type, String value) {
        StringJoiner expected = new StringJoiner(", ");
        for (E constant : type.getEnumConstants()) {
            if (constant.flag().equalsIgnoreCase(value) || constant.name().equalsIgnoreCase(value)) {
                return constant;
            }
            expected.add(constant.flag());
        }
        throw new IllegalArgumentException("expected one of " + expected + " but was '" + value + "'");
    }
}
