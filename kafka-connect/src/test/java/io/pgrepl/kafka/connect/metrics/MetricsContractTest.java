package io.pgrepl.kafka.connect.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.pipeline.metrics.SnapshotChangeEventSourceMetricsMXBean;
import io.debezium.pipeline.metrics.StreamingChangeEventSourceMetricsMXBean;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import javax.management.openmbean.OpenMBeanAttributeInfo;
import org.junit.jupiter.api.Test;

/**
 * pgrepl's beans against Debezium 3.6.1's own: the MXBean interfaces as JMX sees them (attribute
 * names, readability, open types; operations and their signatures), and the ObjectNames as
 * Debezium's own {@code io.debezium.metrics.Metrics} forms them from a PostgresConnectorConfig.
 */
class MetricsContractTest {

    @Test
    void snapshotBeanHasDebeziumsAttributesAndOperations() throws Exception {
        assertSameShape(SnapshotChangeEventSourceMetricsMXBean.class, SnapshotMetricsMXBean.class, new SnapshotMetrics());
    }

    @Test
    void streamingBeanHasDebeziumsAttributesAndOperations() throws Exception {
        assertSameShape(StreamingChangeEventSourceMetricsMXBean.class, StreamingMetricsMXBean.class, new StreamingMetrics(false));
    }

    @Test
    void namesAreDebeziums() throws Exception {
        for (String tags : new String[] {null, "", "env=prod", " env = prod , team=cdc,x=1", "server=renamed,k=v",
                "context=other", "k=with space", "k=a:b", "k=a*b", "dup=1,dup=2", "k=v,"}) {
            for (String context : new String[] {MetricNames.SNAPSHOT, MetricNames.STREAMING}) {
                ObjectName debezium = debeziumName("inventory.db-1", context, tags);
                ObjectName ours = MetricNames.of("inventory.db-1", context, MetricNames.customTags(tags));
                assertEquals(debezium, ours, "custom.metric.tags=" + tags);
                // Same keys in the same order: what a Prometheus exporter pattern matches on.
                assertEquals(debezium.getKeyPropertyListString(), ours.getKeyPropertyListString(), "custom.metric.tags=" + tags);
            }
        }
        assertEquals("debezium.postgres:type=connector-metrics,context=streaming,server=p,env=prod,team=cdc",
                MetricNames.of("p", MetricNames.STREAMING, MetricNames.customTags("env=prod,team=cdc")).toString());
    }

    @Test
    void malformedTagsAreRefusedNamingTheSetting() {
        for (String bad : new String[] {"novalue", "k=", "a=b=c", "k=v,,x=y"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MetricNames.customTags(bad), bad);
            assertEquals(true, e.getMessage().startsWith(MetricNames.CUSTOM_METRIC_TAGS + ":"), e.getMessage());
        }
        assertNotNull(MetricNames.problem("p", "type=x"), "a second type key is no valid JMX name");
        assertNotNull(MetricNames.problem("p", "a,b=c"));
        assertNull(MetricNames.problem("p", "env=prod"));
        assertNull(MetricNames.problem("p", null));
        // Refused by the connector's validation, naming the setting.
        var v = io.pgrepl.kafka.connect.PgreplConnectorConfig.CONFIG_DEF.validateAll(Map.of(MetricNames.CUSTOM_METRIC_TAGS, "env"))
                .get(MetricNames.CUSTOM_METRIC_TAGS);
        assertEquals(1, v.errorMessages().size(), v.errorMessages().toString());
        assertEquals(true, v.errorMessages().get(0).contains(MetricNames.CUSTOM_METRIC_TAGS + ": \"env\" is not key=value"),
                v.errorMessages().toString());
        assertEquals(List.of(), io.pgrepl.kafka.connect.PgreplConnectorConfig.CONFIG_DEF
                .validateAll(Map.of(MetricNames.CUSTOM_METRIC_TAGS, "env=prod")).get(MetricNames.CUSTOM_METRIC_TAGS).errorMessages());
    }

    /** The name Debezium's own Metrics class gives a bean of its PostgreSQL connector with these settings. */
    private static ObjectName debeziumName(String prefix, String context, String tags) throws Exception {
        Configuration.Builder b = Configuration.create().with("topic.prefix", prefix);
        if (tags != null) b.with("custom.metric.tags", tags);
        PostgresConnectorConfig config = new PostgresConnectorConfig(b.build());
        io.debezium.metrics.Metrics m = new io.debezium.metrics.Metrics(config, context, false) { };
        var f = io.debezium.metrics.Metrics.class.getDeclaredField("name");
        f.setAccessible(true);
        return (ObjectName) f.get(m);
    }

    private static void assertSameShape(Class<?> debezium, Class<?> ours, Object impl) throws Exception {
        Object stand = Proxy.newProxyInstance(debezium.getClassLoader(), new Class<?>[] {debezium}, (p, m, a) -> null);
        MBeanInfo theirs = new StandardMBean(debezium.cast(stand), cast(debezium), true).getMBeanInfo();
        MBeanInfo mine = new StandardMBean(impl, cast(ours), true).getMBeanInfo();
        assertEquals(attributes(theirs), attributes(mine));
        assertEquals(operations(theirs), operations(mine));
    }

    @SuppressWarnings("unchecked")
    private static <T> Class<T> cast(Class<?> c) {
        return (Class<T>) c;
    }

    private static Map<String, String> attributes(MBeanInfo info) {
        Map<String, String> out = new TreeMap<>();
        for (MBeanAttributeInfo a : info.getAttributes()) {
            String open = a instanceof OpenMBeanAttributeInfo o ? o.getOpenType().toString() : "?";
            out.put(a.getName(), a.getType() + " " + open + " r=" + a.isReadable() + " w=" + a.isWritable() + " is=" + a.isIs());
        }
        return out;
    }

    private static Map<String, String> operations(MBeanInfo info) {
        Map<String, String> out = new TreeMap<>();
        for (MBeanOperationInfo o : info.getOperations()) {
            out.put(o.getName(), o.getReturnType() + Arrays.toString(Arrays.stream(o.getSignature()).map(s -> s.getType()).toArray()));
        }
        return out;
    }
}
