package io.pgrepl.kafka.connect.notifications;

import io.pgrepl.kafka.connect.metrics.ManagementBean;
import io.pgrepl.kafka.connect.metrics.MetricNames;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanNotificationInfo;
import javax.management.Notification;
import javax.management.NotificationBroadcasterSupport;

/**
 * Debezium's jmx notification channel: the bean
 * {@code debezium.postgres:type=management,context=notifications,server=<topic.prefix>}
 * (custom.metric.tags appended) keeps the notifications (attribute {@code Notifications}, operation
 * {@code reset}) and emits each as a JMX notification of type {@code debezium.notification}, message
 * {@code "<aggregate type> generated a notification"}, user data the notification's text. Debezium
 * keeps every notification until reset; an incremental snapshot of a large table sends one per
 * chunk, so pgrepl keeps the newest {@value #KEPT}.
 */
public final class JmxNotifications extends NotificationBroadcasterSupport implements JmxNotificationsMXBean, AutoCloseable {
    /** The bean's {@code context}, as Debezium names it. */
    public static final String CONTEXT = "notifications";
    /** The JMX notifications' type, Debezium's. */
    public static final String TYPE = "debezium.notification";
    /** Notifications kept for the Notifications attribute. */
    public static final int KEPT = 10_000;
    /** The class name Debezium's MBeanNotificationInfo gives (its notification class): clients may filter on it. */
    private static final String DEBEZIUM_NOTIFICATION_CLASS = "io.debezium.pipeline.notification.Notification";

    private final Deque<Notice> kept = new ArrayDeque<>();
    private final AtomicLong sequence = new AtomicLong();
    private ManagementBean bean;

    private JmxNotifications() {}

    /** Registers the channel's bean for {@code topicPrefix} with {@code customTags} (custom.metric.tags). */
    public static JmxNotifications start(String topicPrefix, Map<String, String> customTags) {
        JmxNotifications n = new JmxNotifications();
        n.bean = ManagementBean.start(n, MetricNames.management(topicPrefix, CONTEXT, customTags));
        return n;
    }

    /** Keeps {@code n} and emits it to the bean's listeners (any thread). */
    public void send(Notice n) {
        synchronized (kept) {
            kept.addLast(n);
            if (kept.size() > KEPT) kept.removeFirst();
        }
        Notification j = new Notification(TYPE, bean == null ? this : bean.name(), sequence.getAndIncrement(), System.currentTimeMillis(),
                n.getAggregateType() + " generated a notification");
        j.setUserData(n.toString());
        sendNotification(j);
    }

    @Override
    public List<Notice> getNotifications() {
        synchronized (kept) {
            return new ArrayList<>(kept);
        }
    }

    @Override
    public void reset() {
        synchronized (kept) {
            kept.clear();
        }
    }

    @Override
    public MBeanNotificationInfo[] getNotificationInfo() {
        return new MBeanNotificationInfo[] {new MBeanNotificationInfo(new String[] {TYPE}, DEBEZIUM_NOTIFICATION_CLASS,
                "Notification emitted by the connector about its status")};
    }

    @Override
    public void close() {
        if (bean != null) bean.close();
    }
}
