package io.pgrepl.kafka.connect.settings;

import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * One of Debezium's settings and what pgrepl does with it. Some are honoured for certain values
 * only (those that describe what pgrepl does anyway, e.g. {@code plugin.name=pgoutput}); any other
 * value is refused with {@link #otherwise()}.
 *
 * @param name      the key as documented ({@code N}, {@code ALGORITHM} and {@code SALT} stand for the variable parts)
 * @param keys      the keys it covers
 * @param treatment what pgrepl does with it
 * @param note      the difference (DIFFERENT) or what to do instead (REFUSED); empty for SAME
 * @param honoured  the values it is honoured for, or null: every value
 * @param values    those values in words, for the table
 * @param otherwise what to do instead when the value is not honoured
 */
public record DebeziumSetting(String name, Pattern keys, Treatment treatment, String note,
                              Predicate<String> honoured, String values, String otherwise) {

    /** {@return whether {@code key} is this setting} */
    public boolean covers(String key) {
        return keys.matcher(key).matches();
    }

    /** {@return whether this is a family of keys (column.mask.with.N.chars) rather than one key} */
    public boolean family() {
        return !keys.pattern().equals(Pattern.quote(name));
    }

    /** {@return why {@code key=value} is refused, or null when it is honoured} */
    public String refusal(String key, String value) {
        if (treatment == Treatment.REFUSED) {
            return key + " is a Debezium setting pgrepl does not support: " + note;
        }
        if (honoured != null && !honoured.test(value == null ? "" : value.trim())) {
            return key + "=" + shown(key, value) + " is not supported by pgrepl (only " + values + "): " + otherwise;
        }
        return null;
    }

    /** A value in a message: never one of a key that may hold a secret. */
    private static String shown(String key, String value) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password") || k.contains("secret") || k.contains("salt") ? "[hidden]" : String.valueOf(value);
    }

    /** Case-insensitive membership, as Debezium reads its enumerated values. */
    static Predicate<String> oneOf(String... values) {
        Set<String> set = Set.of(values);
        return v -> set.contains(v.toLowerCase(Locale.ROOT));
    }
}
