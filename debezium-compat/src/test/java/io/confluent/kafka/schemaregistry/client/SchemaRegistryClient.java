package io.confluent.kafka.schemaregistry.client;

/**
 * Stand-in for Confluent's schema registry client interface, which Debezium's VerifyRecord names (its
 * Avro round trip). Confluent's jars are not on Maven Central, the only repository this build reads;
 * see {@link io.confluent.connect.avro.AvroConverter}.
 */
public interface SchemaRegistryClient {}
