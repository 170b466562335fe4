package io.pgrepl.kafka.connect;

import io.pgrepl.kafka.connect.records.SourceInfo;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;
import org.apache.kafka.connect.storage.Converter;

/**
 * Kafka's {@link JsonConverter}, byte for byte, with the {@code "schema"} half of each message written
 * once per schema instead of once per record.
 *
 * <p>With {@code schemas.enable=true} every message is {@code {"schema":S,"payload":P}}. For a change
 * event S is the whole Debezium envelope schema (about 2.4 KB for a five-column table) and P a few
 * hundred bytes, yet the stock converter builds and serializes S's JSON tree again for every record:
 * most of a source task thread's CPU. This converter asks the stock converter for the whole message
 * the first time it meets a schema, asks a schema-less stock converter for P alone, and keeps what
 * precedes P as that schema's prefix. Later records with an equal schema are the prefix, P (from the
 * schema-less stock converter) and {@code '}'}. Every byte still comes from {@link JsonConverter}
 * itself, so its settings ({@code decimal.format}, {@code replace.null.with.default}, …) and its
 * errors carry over unchanged; a message that does not split as expected is never cached, and that
 * schema keeps going through the stock converter.
 *
 * <p>Reading ({@link #toConnectData}) is the stock converter's. Works for any connector's records,
 * not only pgrepl's: set {@code key.converter}/{@code value.converter} to this class, with the same
 * {@code *.converter.*} settings as for {@code JsonConverter}.
 */
public final class CachedSchemaJsonConverter implements Converter {
    private static final byte[] HEAD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PAYLOAD = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);
    /** Marks a schema whose message did not split into prefix, payload and brace. */
    private static final byte[] UNCACHEABLE = new byte[0];

    private final JsonConverter whole = new JsonConverter();
    private final JsonConverter bare = new JsonConverter();
    private boolean schemasEnabled;
    private Map<Schema, byte[]> prefixes;

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        whole.configure(configs, isKey);
        JsonConverterConfig config = new JsonConverterConfig(withType(configs, isKey));
        schemasEnabled = config.schemasEnabled();
        Map<String, Object> bareConfigs = new HashMap<>(configs);
        bareConfigs.put(JsonConverterConfig.SCHEMAS_ENABLE_CONFIG, false);
        bare.configure(bareConfigs, isKey);
        int cacheSize = config.schemaCacheSize();
        prefixes = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Schema, byte[]> eldest) {
                return size() > cacheSize;
            }
        };
    }

    private static Map<String, Object> withType(Map<String, ?> configs, boolean isKey) {
        Map<String, Object> typed = new HashMap<>(configs);
        typed.put("converter.type", isKey ? "key" : "value");
        return typed;
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        if (!schemasEnabled || schema == null) return whole.fromConnectData(topic, schema, value);
        byte[] prefix;
        synchronized (this) {
            prefix = prefixes.get(schema);
        }
        if (prefix == UNCACHEABLE) return whole.fromConnectData(topic, schema, value);
        if (prefix == null) {
            byte[] message = whole.fromConnectData(topic, schema, value);
            byte[] payload = bare.fromConnectData(topic, schema, value);
            synchronized (this) {
                prefixes.put(schema, prefixOf(message, payload));
            }
            return message;
        }
        byte[] payload = bare.fromConnectData(topic, schema, value);
        byte[] message = Arrays.copyOf(prefix, prefix.length + payload.length + 1);
        System.arraycopy(payload, 0, message, prefix.length, payload.length);
        message[message.length - 1] = '}';
        return message;
    }

    /**
     * What precedes {@code payload} in {@code message}, if the message is exactly
     * {@code {"schema":…,"payload":} + payload + {@code }}; otherwise {@link #UNCACHEABLE}.
     */
    static byte[] prefixOf(byte[] message, byte[] payload) {
        if (message == null || payload == null) return UNCACHEABLE;
        int p = message.length - payload.length - 1;
        if (p < HEAD.length + PAYLOAD.length || message[message.length - 1] != '}') return UNCACHEABLE;
        if (!Arrays.equals(message, p, message.length - 1, payload, 0, payload.length)) return UNCACHEABLE;
        if (!Arrays.equals(message, 0, HEAD.length, HEAD, 0, HEAD.length)) return UNCACHEABLE;
        if (!Arrays.equals(message, p - PAYLOAD.length, p, PAYLOAD, 0, PAYLOAD.length)) return UNCACHEABLE;
        return Arrays.copyOf(message, p);
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        return whole.toConnectData(topic, value);
    }

    @Override
    public ConfigDef config() {
        return JsonConverterConfig.configDef();
    }

    @Override
    public String version() {
        return SourceInfo.VERSION;
    }

    @Override
    public void close() {
        whole.close();
        bare.close();
    }

    /** How many schemas have a cached prefix (tests). */
    synchronized int cachedSchemas() {
        return (int) prefixes.values().stream().filter(p -> p != UNCACHEABLE).count();
    }
}
