package io.pgrepl.kafka.connect.settings;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/** Debezium's settings of what is captured beyond the table lists: schema lists and skipped operations. */
public final class CaptureSettings {
    private CaptureSettings() {}

    public static final String SCHEMA_INCLUDE = "schema.include.list";
    public static final String SCHEMA_EXCLUDE = "schema.exclude.list";
    public static final String SKIPPED_OPERATIONS = "skipped.operations";
    public static final String MESSAGE_PREFIX_INCLUDE = "message.prefix.include.list";
    public static final String MESSAGE_PREFIX_EXCLUDE = "message.prefix.exclude.list";

    public static ConfigDef define(ConfigDef d) {
        return d
                .define(SCHEMA_INCLUDE, Type.LIST, "", Importance.MEDIUM, "Regular expressions for schema names to capture"
                        + " (whole name, ignoring case), besides table.include.list.")
                .define(SCHEMA_EXCLUDE, Type.LIST, "", Importance.MEDIUM, "Regular expressions for schema names not to capture.")
                .define(SKIPPED_OPERATIONS, Type.STRING, "t", (name, v) -> {
                    try {
                        SkippedOperations.parse(v == null ? null : v.toString());
                    } catch (IllegalArgumentException e) {
                        throw new org.apache.kafka.common.config.ConfigException(name, v, e.getMessage());
                    }
                }, Importance.MEDIUM, "Operations not sent: c (inserts), u (updates), d (deletes and their tombstones),"
                        + " t (truncates), comma-separated, or none. Debezium's default, t.")
                .define(MESSAGE_PREFIX_INCLUDE, Type.LIST, "", Importance.LOW, "Regular expressions for the prefixes of the"
                        + " logical decoding messages sent (to <topic.prefix>.message, or messages.topic; whole prefix, ignoring case).")
                .define(MESSAGE_PREFIX_EXCLUDE, Type.LIST, "", Importance.LOW, "Regular expressions for the prefixes of the"
                        + " logical decoding messages not sent.");
    }

    /** {@return whether a message with {@code prefix} is sent, by the include and exclude lists} */
    public static java.util.function.Predicate<String> messagePrefixes(java.util.List<String> include, java.util.List<String> exclude) {
        RegexList in = RegexList.of(include);
        RegexList out = RegexList.of(exclude);
        return prefix -> (in.isEmpty() || in.matches(prefix)) && !out.matches(prefix);
    }
}
