package io.pgrepl.kafka.connect.signals;

/**
 * The JMX signal channel's operation, as Debezium's JmxSignalChannelMXBean offers it: a signal's
 * id, type and data (JSON), the three columns of a signal table row.
 */
public interface JmxSignalsMXBean {
    /**
     * Acts on a signal exactly as on a row of signal.data.collection.
     *
     * @param id   the signal's id (free text, for the log)
     * @param type {@code execute-snapshot}, {@code stop-snapshot}, {@code pause-snapshot} or {@code resume-snapshot}
     * @param data the signal's data as JSON, e.g. {@code {"data-collections": ["public.orders"]}}
     */
    void signal(String id, String type, String data);
}
