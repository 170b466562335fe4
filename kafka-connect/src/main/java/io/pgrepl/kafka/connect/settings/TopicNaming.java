package io.pgrepl.kafka.connect.settings;

import java.util.Locale;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * topic.naming.strategy and topic.delimiter: a table's topic is {@code prefix, schema, table}
 * joined by the delimiter, then made a valid Kafka topic name as Debezium makes it: every character
 * other than ASCII letters, digits, {@code .}, {@code _} and {@code -} becomes {@code _}
 * (SchemaTopicNamingStrategy, the PostgreSQL connector's default), or {@code _u} and its four hex
 * digits, {@code _} itself included (SchemaUnicodeTopicNamingStrategy), so that distinct names stay
 * distinct. The records' schema names start with the same name, as Debezium's do.
 */
public final class TopicNaming {
    public static final String STRATEGY = "topic.naming.strategy";
    public static final String DELIMITER = "topic.delimiter";
    public static final String SCHEMA = "io.debezium.schema.SchemaTopicNamingStrategy";
    public static final String SCHEMA_UNICODE = "io.debezium.schema.SchemaUnicodeTopicNamingStrategy";
    private static final String HEARTBEAT_PREFIX = "__debezium-heartbeat";

    private final boolean unicode;
    private final String delimiter;

    public TopicNaming(boolean unicode, String delimiter) {
        this.unicode = unicode;
        this.delimiter = delimiter;
    }

    public static ConfigDef define(ConfigDef d) {
        return d
                // Other strategies are refused by the settings contract (DebeziumSettings), with what to do instead.
                .define(STRATEGY, Type.STRING, SCHEMA, null, Importance.LOW, "How a table's topic is named: " + SCHEMA
                        + " (<topic.prefix>.<schema>.<table>, characters Kafka refuses as _) or " + SCHEMA_UNICODE + " (as _uXXXX).")
                .define(DELIMITER, Type.STRING, ".", (name, v) -> {
                    if (v == null || !v.toString().matches("[a-zA-Z0-9._-]+")) {
                        throw new ConfigException(name, v, "must be letters, digits, '.', '_' or '-'");
                    }
                }, Importance.LOW, "What joins topic.prefix, the schema and the table in a topic's name (and the heartbeat"
                        + " topic's prefix and topic.prefix).");
    }

    public static TopicNaming of(AbstractConfig c) {
        String strategy = c.getString(STRATEGY);
        return new TopicNaming(strategy != null && strategy.trim().equals(SCHEMA_UNICODE), c.getString(DELIMITER));
    }

    /** {@return the topic of table {@code schema.table}} */
    public String table(String prefix, String schema, String table) {
        return valid(prefix + delimiter + schema + delimiter + table);
    }

    /** {@return the heartbeat topic} */
    public String heartbeat(String prefix) {
        return HEARTBEAT_PREFIX + delimiter + prefix;
    }

    private String valid(String name) {
        StringBuilder b = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-'
                    || (c == '_' && !unicode);
            if (ok && b == null) continue;
            if (b == null) b = new StringBuilder(name.length() + 8).append(name, 0, i);
            if (ok) b.append(c);
            else if (unicode) b.append("_u").append(String.format(Locale.ROOT, "%04x", (int) c));
            else b.append('_');
        }
        return b == null ? name : b.toString();
    }
}
