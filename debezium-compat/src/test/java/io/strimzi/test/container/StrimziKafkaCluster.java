package io.strimzi.test.container;

import io.pgrepl.debezium.compat.FakeKafkaCluster;
import java.util.HashMap;
import java.util.Map;

/**
 * Stand-in for Strimzi's test container cluster under its name: Debezium's IncrementalSnapshotIT starts
 * one (a Kafka broker in Docker) for its Kafka signal channel, and this machine has no Docker. This one
 * is Kafka's own in-process cluster ({@link FakeKafkaCluster}) on 127.0.0.1 and random ports, for both
 * connectors alike (docs/debezium-compatibility.md). Only what Debezium's tests call is here.
 */
public class StrimziKafkaCluster {
    private final FakeKafkaCluster cluster;

    private StrimziKafkaCluster(int brokers, Map<String, String> config) {
        this.cluster = new FakeKafkaCluster(brokers, config);
    }

    public void start() {
        cluster.start();
    }

    public String getBootstrapServers() {
        return cluster.bootstrapServers();
    }

    public void stop() {
        cluster.stop();
    }

    public static class StrimziKafkaClusterBuilder {
        private int brokers = 1;
        private final Map<String, String> config = new HashMap<>();

        public StrimziKafkaClusterBuilder() {}

        public StrimziKafkaClusterBuilder withNumberOfBrokers(int count) {
            this.brokers = count;
            return this;
        }

        public StrimziKafkaClusterBuilder withAdditionalKafkaConfiguration(Map<String, String> more) {
            if (more != null) config.putAll(more);
            return this;
        }

        /** A Docker network for the containers: nothing to share in one process. */
        public StrimziKafkaClusterBuilder withSharedNetwork() {
            return this;
        }

        public StrimziKafkaCluster build() {
            return new StrimziKafkaCluster(brokers, config);
        }
    }
}
