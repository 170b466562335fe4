package io.pgrepl.kafka.connect.notifications;

import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The notification channels other than sink (whose notifications are records, see
 * SnapshotNotifications): jmx ({@link JmxNotifications}) and log, an INFO line
 * {@code [Notification Service] <notification>} as Debezium's log channel writes it (logger
 * {@code io.pgrepl.kafka.connect.notifications.NotificationChannels}).
 */
public final class NotificationChannels implements Consumer<Notice>, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NotificationChannels.class);

    private final JmxNotifications jmx;
    private final boolean logged;

    /** {@code jmx}: the jmx channel's bean, or null. */
    public NotificationChannels(JmxNotifications jmx, boolean logged) {
        this.jmx = jmx;
        this.logged = logged;
    }

    /** Whether any channel is on. */
    public boolean any() {
        return jmx != null || logged;
    }

    @Override
    public void accept(Notice n) {
        if (logged) log.info("{} {}", "[Notification Service]", n);
        if (jmx != null) jmx.send(n);
    }

    /**
     * The initial snapshot's (the copy's) {@code STARTED}, {@code COMPLETED} or {@code ABORTED}, aggregate
     * type {@code Initial Snapshot}, {@code connector_name} its only data, as Debezium sends them; these
     * channels only (the copy's records carry no notifications), and no per-table steps.
     */
    public void initialSnapshot(String type, String connector) {
        if (any()) accept(new Notice(java.util.UUID.randomUUID().toString(), "Initial Snapshot", type, java.util.Map.of("connector_name", connector),
                System.currentTimeMillis()));
    }

    @Override
    public void close() {
        if (jmx != null) jmx.close();
    }
}
