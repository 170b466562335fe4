package io.pgrepl.kafka.connect.records;

import io.pgrepl.kafka.connect.PgreplConnectorConfig.BinaryMode;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HexFormat;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Logical decoding messages (pg_logical_emit_message) as Debezium's PostgreSQL connector writes
 * them: a {@code MessageValue} of {@code op} "m", {@code ts_ms} (when it was built), {@code source},
 * {@code transaction} and {@code message} ({@code prefix}, {@code content} as binary.handling.mode
 * represents bytes), with Debezium's schema names and versions.
 */
public final class LogicalMessages {
    private final BinaryMode mode;
    private final String topic;
    private final Schema block;
    private final Schema value;

    public LogicalMessages(BinaryMode mode, String topic) {
        this.mode = mode;
        this.topic = topic;
        SchemaBuilder content = mode == BinaryMode.BYTES ? SchemaBuilder.bytes() : SchemaBuilder.string();
        this.block = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Message").version(1)
                .field("prefix", Schema.OPTIONAL_STRING_SCHEMA).field("content", content.optional().build()).build();
        this.value = SchemaBuilder.struct().name("io.debezium.connector.postgresql.MessageValue").version(1)
                .field("op", Schema.STRING_SCHEMA)
                .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
                .field("source", SourceInfo.SCHEMA)
                .field("transaction", SourceInfo.TRANSACTION_SCHEMA)
                .field("message", block)
                .build();
    }

    public String topic() {
        return topic;
    }

    public Schema valueSchema() {
        return value;
    }

    /** @param transaction the {@code transaction} block, or null (no metadata, or a message outside a transaction) */
    public Struct value(Struct source, Struct transaction, String prefix, byte[] content, long tsMs) {
        return new Struct(value).put("op", "m").put("ts_ms", tsMs).put("source", source).put("transaction", transaction)
                .put("message", new Struct(block).put("prefix", prefix).put("content", content(content)));
    }

    private Object content(byte[] b) {
        if (b == null) return null;
        return switch (mode) {
            case BYTES -> ByteBuffer.wrap(b);
            case BASE64 -> Base64.getEncoder().encodeToString(b);
            case BASE64_URL_SAFE -> Base64.getUrlEncoder().encodeToString(b);
            case HEX -> HexFormat.of().formatHex(b);
        };
    }
}
