package io.pgrepl.debezium.compat;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;

/**
 * What the Strimzi stand-in ({@code io.strimzi.test.container.StrimziKafkaCluster}) runs instead of
 * containers: Kafka's in-process KRaft cluster from its Connect test jar, brokers on 127.0.0.1 and
 * ports the system picks, with the broker settings the test asked for.
 */
public final class FakeKafkaCluster {
    private final EmbeddedKafkaCluster cluster;
    private boolean started;

    public FakeKafkaCluster(int brokers, Map<String, String> brokerConfig) {
        if (brokers < 1) throw new IllegalArgumentException("brokers must be at least 1, not " + brokers);
        Properties props = new Properties();
        props.putAll(brokerConfig);
        this.cluster = new EmbeddedKafkaCluster(brokers, props);
    }

    public synchronized void start() {
        cluster.start();
        started = true;
    }

    public synchronized String bootstrapServers() {
        if (!started) throw new IllegalStateException("the Kafka cluster is not started");
        return cluster.bootstrapServers();
    }

    public synchronized void stop() {
        if (started) {
            started = false;
            cluster.stop();
        }
    }
}
