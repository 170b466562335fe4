package io.pgrepl.kafka.connect.signals;

import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.MalformedSignalException;
import io.pgrepl.client.snapshot.incremental.SnapshotSignals;
import io.pgrepl.kafka.connect.metrics.ManagementBean;
import io.pgrepl.kafka.connect.metrics.MetricNames;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's jmx signal channel: the bean
 * {@code debezium.postgres:type=management,context=signals,server=<topic.prefix>} (custom.metric.tags
 * appended) whose {@code signal(id, type, data)} operation hands the signal to the incremental
 * snapshot engine as a signal table row would be: the same types, the same tables refused unread
 * (the connector's capture scope applies whatever the channel). Debezium queues the call and
 * reads it later, so a malformed signal is only ever logged; here it is parsed at once and the
 * caller gets the reason too, as an IllegalArgumentException (a JMX client sees it wrapped in a
 * RuntimeMBeanException). Signals sent over JMX are not stored: like Debezium's, a signal sent
 * while no task runs reaches nobody, and the bean is only there while a task is.
 */
public final class JmxSignals implements JmxSignalsMXBean, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JmxSignals.class);
    /** The bean's {@code context}, as Debezium names it. */
    public static final String CONTEXT = "signals";

    private final IncrementalSnapshots engine;
    private final String slot;
    private ManagementBean bean;

    private JmxSignals(IncrementalSnapshots engine, String slot) {
        this.engine = engine;
        this.slot = slot;
    }

    /** Registers the channel's bean for {@code topicPrefix} with {@code customTags} (custom.metric.tags). */
    public static JmxSignals start(IncrementalSnapshots engine, String topicPrefix, Map<String, String> customTags, String slot) {
        JmxSignals s = new JmxSignals(engine, slot);
        s.bean = ManagementBean.start(s, MetricNames.management(topicPrefix, CONTEXT, customTags));
        log.info("jmx signal channel: signals through the signal operation of {}", s.bean.name());
        return s;
    }

    @Override
    public void signal(String id, String type, String data) {
        String where = "jmx signal" + (id == null || id.isBlank() ? "" : " " + id);
        try {
            engine.signal(SnapshotSignals.parse(id, type, data), where);
        } catch (MalformedSignalException e) {
            log.error("slot {}: malformed snapshot signal ({}): {}; ignored", slot, where, e.getMessage());
            throw new IllegalArgumentException(where + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        if (bean != null) bean.close();
    }
}
