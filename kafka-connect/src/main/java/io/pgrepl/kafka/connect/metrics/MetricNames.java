package io.pgrepl.kafka.connect.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Sanitizer;

/**
 * The beans' JMX names, as Debezium's PostgreSQL connector (one task) forms them:
 * {@code debezium.postgres:type=connector-metrics,context=<snapshot|streaming>,server=<topic.prefix>},
 * then custom.metric.tags in the order given. A tag named like a key already there takes that key's
 * place with its own value ({@code server=x} renames the server, where it stands); values are
 * quoted when JMX needs it, by Kafka's own {@link Sanitizer#jmxSanitize}, as Debezium does.
 */
public final class MetricNames {
    /** Debezium's (internal) setting that fills the streaming bean's per-table maps. */
    public static final String ADVANCED_METRICS = "advanced.metrics.enable";
    /** The Debezium setting: {@code k1=v1,k2=v2}. */
    public static final String CUSTOM_METRIC_TAGS = "custom.metric.tags";
    public static final String SNAPSHOT = "snapshot";
    public static final String STREAMING = "streaming";

    private MetricNames() {}

    /**
     * {@return custom.metric.tags as pairs, in order (a repeated key keeps its last value); empty when unset or blank}
     *
     * @throws IllegalArgumentException naming the setting and the part that is not {@code key=value}
     */
    public static Map<String, String> customTags(String value) {
        Map<String, String> tags = new LinkedHashMap<>();
        if (value == null || value.isBlank()) return tags;
        for (String pair : value.split(",")) {
            String[] kv = pair.trim().split("=");
            if (kv.length != 2) {
                throw new IllegalArgumentException(CUSTOM_METRIC_TAGS + ": \"" + pair.trim() + "\" is not key=value; give"
                        + " comma-separated pairs, for example k1=v1,k2=v2");
            }
            tags.put(kv[0].trim(), kv[1].trim());
        }
        return tags;
    }

    /**
     * {@return the bean's name for {@code context} (snapshot or streaming)}
     *
     * @throws IllegalArgumentException when custom.metric.tags make it no valid JMX name (an empty
     *         key, a key with {@code : , = * ?}, or {@code type})
     */
    public static ObjectName of(String topicPrefix, String context, Map<String, String> customTags) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("context", context);
        tags.put("server", topicPrefix);
        tags.putAll(customTags);
        String name = "debezium.postgres:type=connector-metrics," + tags.entrySet().stream()
                .map(e -> e.getKey() + "=" + Sanitizer.jmxSanitize(e.getValue())).collect(Collectors.joining(","));
        try {
            return new ObjectName(name);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException(CUSTOM_METRIC_TAGS + ": the metrics' JMX name " + name + " is not valid ("
                    + e.getMessage() + "); use keys of letters, digits, '-', '_' and '.', other than type", e);
        }
    }

    /**
     * {@return the name of a management bean (context {@code signals} or {@code notifications})}: as
     * Debezium's JmxUtils forms it, {@code debezium.postgres:type=management,context=<context>,server=<topic.prefix>}
     * with custom.metric.tags appended as given. Unlike the metrics' names, a tag repeating a key
     * (server, context) does not replace it: Debezium cannot register such a bean, and neither can pgrepl.
     *
     * @throws IllegalArgumentException naming custom.metric.tags when the name is no valid JMX name
     */
    public static ObjectName management(String topicPrefix, String context, Map<String, String> customTags) {
        StringBuilder name = new StringBuilder("debezium.postgres:type=management,context=").append(context).append(",server=")
                .append(topicPrefix);
        customTags.forEach((k, v) -> name.append(',').append(k).append('=').append(Sanitizer.jmxSanitize(v)));
        try {
            return new ObjectName(name.toString());
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException(CUSTOM_METRIC_TAGS + ": the " + context + " bean's JMX name " + name + " is not valid ("
                    + e.getMessage() + "); Debezium appends the tags to type, context and server, so none may repeat those keys", e);
        }
    }

    /** {@return why custom.metric.tags cannot be used with {@code topicPrefix}, or null when they can} */
    public static String problem(String topicPrefix, Object customTags) {
        try {
            of(topicPrefix == null ? "x" : topicPrefix, STREAMING, customTags(customTags == null ? null : customTags.toString()));
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** custom.metric.tags' check: pairs that make valid JMX names whatever topic.prefix is (its value is quoted if need be). */
    public static final ConfigDef.Validator VALIDATOR = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            String p = problem("x", value);
            if (p != null) throw new ConfigException(name, value, p);
        }

        @Override
        public String toString() {
            return "k1=v1,k2=v2";
        }
    };
}
