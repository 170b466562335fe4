package io.pgrepl.kafka.connect.settings;

import java.util.List;
import java.util.Set;

/**
 * Keys that belong to Kafka Connect itself (the worker reads them from every connector's
 * configuration: its name, class, converters, transforms, error handling, topic creation,
 * exactly-once and client overrides); they pass through the settings check untouched.
 */
final class ConnectKeys {
    private ConnectKeys() {}

    private static final Set<String> EXACT = Set.of("name", "connector.class", "tasks.max", "tasks.max.enforce",
            "config.action.reload", "exactly.once.support", "offsets.storage.topic", "plugin.version", "key.converter",
            "value.converter", "header.converter", "transforms", "predicates", "transaction.boundary");

    private static final List<String> PREFIXES = List.of("key.converter.", "value.converter.", "header.converter.",
            "transforms.", "predicates.", "errors.", "topic.creation.", "transaction.boundary.", "producer.override.",
            "consumer.override.", "admin.override.");

    static boolean owns(String key) {
        if (EXACT.contains(key)) return true;
        for (String p : PREFIXES) if (key.startsWith(p)) return true;
        return false;
    }
}
