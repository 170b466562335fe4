package io.confluent.kafka.schemaregistry.client;

/** Stand-in: see {@link SchemaRegistryClient}. Holds nothing; the stand-in converter needs no registry. */
public class MockSchemaRegistryClient implements SchemaRegistryClient {}
