package io.pgrepl.kafka.connect.notifications;

import java.beans.ConstructorProperties;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One notification as Debezium's JMX and log channels show it: the properties of Debezium's
 * {@code io.debezium.pipeline.notification.Notification} (so a JMX client's proxy of Debezium's
 * interface reads pgrepl's bean), and its text form, which Debezium uses as the JMX notification's
 * user data and as the log line.
 */
public final class Notice {
    private final String id;
    private final String aggregateType;
    private final String type;
    private final Map<String, String> additionalData;
    private final Long timestamp;

    @ConstructorProperties({"id", "aggregateType", "type", "additionalData", "timestamp"})
    public Notice(String id, String aggregateType, String type, Map<String, String> additionalData, Long timestamp) {
        this.id = id;
        this.aggregateType = aggregateType;
        this.type = type;
        this.additionalData = additionalData == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(additionalData));
        this.timestamp = timestamp;
    }

    public String getId() {
        return id;
    }

    public String getAggregateType() {
        return aggregateType;
    }

    public String getType() {
        return type;
    }

    public Map<String, String> getAdditionalData() {
        return additionalData;
    }

    public Long getTimestamp() {
        return timestamp;
    }

    /** Debezium 3.6's text of a notification. */
    @Override
    public String toString() {
        return "{id='" + id + "', aggregateType='" + aggregateType + "', type='" + type + "', additionalData=" + additionalData
                + ", timestamp=" + timestamp + "}";
    }
}
