package io.pgrepl.kafka.connect.notifications;

import java.util.List;

/** The JMX notification channel's bean, as Debezium's JmxNotificationChannelMXBean. */
public interface JmxNotificationsMXBean {
    /** {@return the notifications sent since the task started or the last {@link #reset()}, oldest first} */
    List<Notice> getNotifications();

    /** Forgets the notifications kept so far. */
    void reset();
}
