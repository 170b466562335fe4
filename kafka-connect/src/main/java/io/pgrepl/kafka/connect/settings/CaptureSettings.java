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
                        + " t (truncates), comma-separated, or none. Debezium's default, t.");
    }
}
