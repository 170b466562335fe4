package io.pgrepl.kafka.connect.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.pipeline.notification.Notification;
import io.debezium.pipeline.notification.channels.jmx.JmxNotificationChannel;
import io.debezium.pipeline.notification.channels.jmx.JmxNotificationChannelMXBean;
import io.debezium.pipeline.signal.channels.jmx.JmxSignalChannel;
import io.debezium.pipeline.signal.channels.jmx.JmxSignalChannelMXBean;
import io.pgrepl.kafka.connect.notifications.JmxNotifications;
import io.pgrepl.kafka.connect.notifications.JmxNotificationsMXBean;
import io.pgrepl.kafka.connect.notifications.Notice;
import io.pgrepl.kafka.connect.signals.JmxSignalsMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.management.JMX;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanNotificationInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import javax.management.openmbean.ArrayType;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenMBeanAttributeInfo;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.TabularType;
import org.junit.jupiter.api.Test;

/**
 * The jmx signal and notification channels' beans against Debezium 3.6.1's own: the names its
 * JmxUtils registers its beans under (read back from the MBean server after Debezium's channels
 * registered themselves), the MXBean interfaces as JMX sees them (open types compared by their
 * items, as a client's proxy maps them), the notification info, and a proxy of Debezium's
 * interface reading pgrepl's bean.
 */
class ManagementContractTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @Test
    void namesAreDebeziums() throws Exception {
        for (String tags : new String[] {null, "", "env=prod", " env = prod , team=cdc,x=1", "k=with space", "k=a:b", "k=a*b"}) {
            ObjectName signals = debeziumName(new JmxSignalChannel(), "inventory.db-1", tags);
            assertEquals(signals, MetricNames.management("inventory.db-1", "signals", MetricNames.customTags(tags)), "tags " + tags);
            assertEquals(signals.getKeyPropertyListString(),
                    MetricNames.management("inventory.db-1", "signals", MetricNames.customTags(tags)).getKeyPropertyListString());
            ObjectName notes = debeziumName(new JmxNotificationChannel(), "inventory.db-1", tags);
            assertEquals(notes, MetricNames.management("inventory.db-1", "notifications", MetricNames.customTags(tags)), "tags " + tags);
        }
        assertEquals("debezium.postgres:type=management,context=signals,server=p,env=prod",
                MetricNames.management("p", "signals", Map.of("env", "prod")).toString());
        // A tag repeating a key: no valid name for Debezium either; refused naming the setting.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MetricNames.management("p", "signals", MetricNames.customTags("server=renamed")));
        assertTrue(e.getMessage().startsWith(MetricNames.CUSTOM_METRIC_TAGS + ":"), e.getMessage());
    }

    @Test
    void signalBeanHasDebeziumsOperation() throws Exception {
        assertEquals(shape(JmxSignalChannelMXBean.class), shape(JmxSignalsMXBean.class));
    }

    @Test
    void notificationBeanHasDebeziumsAttributesOperationsAndNotifications() throws Exception {
        assertEquals(shape(JmxNotificationChannelMXBean.class), shape(JmxNotificationsMXBean.class));
        JmxNotifications ours = JmxNotifications.start("contract", Map.of("t", "1"));
        JmxNotificationChannel theirs = new JmxNotificationChannel();
        try {
            ObjectName name = MetricNames.management("contract", "notifications", Map.of("t", "1"));
            await(() -> SERVER.isRegistered(name));
            assertEquals(describe(theirs.getNotificationInfo()), describe(SERVER.getMBeanInfo(name).getNotifications()));

            // Debezium's own interface, as its tests and tools read the bean, reads pgrepl's.
            Map<String, String> data = new LinkedHashMap<>();
            data.put("connector_name", "contract");
            data.put("data_collections", "public.\"Odd Name\"");
            ours.send(new Notice("n-1", "Incremental Snapshot", "STARTED", data, 1_700_000_000_123L));
            JmxNotificationChannelMXBean proxy = JMX.newMXBeanProxy(SERVER, name, JmxNotificationChannelMXBean.class);
            List<Notification> read = proxy.getNotifications();
            assertEquals(1, read.size());
            Notification n = read.get(0);
            assertEquals(new Notification("n-1", "Incremental Snapshot", "STARTED", data, 1_700_000_000_123L), n);
            // The text a JMX notification carries and the log channel writes: Debezium's, character for character.
            assertEquals(n.toString(), ours.getNotifications().get(0).toString());
            proxy.reset();
            assertEquals(List.of(), proxy.getNotifications());
        } finally {
            ours.close();
        }
    }

    /** Registers Debezium's channel as Debezium does, reads the name it took, and unregisters it. */
    private static ObjectName debeziumName(Object channel, String prefix, String tags) throws Exception {
        Configuration.Builder b = Configuration.create().with("topic.prefix", prefix);
        if (tags != null) b.with("custom.metric.tags", tags);
        PostgresConnectorConfig config = new PostgresConnectorConfig(b.build());
        Set<ObjectName> before = SERVER.queryNames(new ObjectName("debezium.postgres:type=management,*"), null);
        if (channel instanceof JmxSignalChannel s) s.init(config);
        else ((JmxNotificationChannel) channel).init(config);
        try {
            List<ObjectName> added = new ArrayList<>(SERVER.queryNames(new ObjectName("debezium.postgres:type=management,*"), null));
            added.removeAll(before);
            assertEquals(1, added.size(), added.toString());
            return added.get(0);
        } finally {
            if (channel instanceof JmxSignalChannel s) s.close();
            else ((JmxNotificationChannel) channel).close();
        }
    }

    /** Attributes and operations as JMX shows an MXBean of {@code type}. */
    private static Map<String, String> shape(Class<?> type) throws Exception {
        Object stand = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> null);
        MBeanInfo info = new StandardMBean(type.cast(stand), cast(type), true).getMBeanInfo();
        Map<String, String> out = new TreeMap<>();
        for (MBeanAttributeInfo a : info.getAttributes()) {
            String open = a instanceof OpenMBeanAttributeInfo o ? items(o.getOpenType()) : "?";
            out.put("attribute " + a.getName(), open + " r=" + a.isReadable() + " w=" + a.isWritable() + " is=" + a.isIs());
        }
        for (MBeanOperationInfo o : info.getOperations()) {
            out.put("operation " + o.getName(), o.getReturnType() + Arrays.toString(Arrays.stream(o.getSignature()).map(s -> s.getType()).toArray()));
        }
        return out;
    }

    /** An open type by its structure: a composite's items, not its name (the Java class it came from). */
    private static String items(OpenType<?> t) {
        if (t instanceof ArrayType<?> a) return "array(" + a.getDimension() + ") of " + items(a.getElementOpenType());
        if (t instanceof CompositeType c) {
            Map<String, String> m = new TreeMap<>();
            for (String k : c.keySet()) m.put(k, items(c.getType(k)));
            return "composite" + m;
        }
        if (t instanceof TabularType tt) return "table" + tt.getIndexNames() + " of " + items(tt.getRowType());
        return t.getClassName();
    }

    private static List<String> describe(MBeanNotificationInfo[] infos) {
        List<String> out = new ArrayList<>();
        for (MBeanNotificationInfo i : infos) out.add(i.getName() + " " + Arrays.toString(i.getNotifTypes()));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static <T> Class<T> cast(Class<?> c) {
        return (Class<T>) c;
    }

    private static void await(Supplier<Boolean> condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.get()) {
            if (System.nanoTime() > end) throw new AssertionError("not registered within 60 s");
            Thread.sleep(20);
        }
    }
}
