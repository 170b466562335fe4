package io.pgrepl.kafka.connect.settings;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.kafka.connect.data.Schema;

/**
 * unavailable.value.placeholder, what an unchanged TOASTed value is sent as, read as Debezium reads
 * it: {@code hex:} and hex digits give those bytes, anything else its UTF-8 bytes; text columns get
 * those bytes as UTF-8 text.
 */
public record UnavailableValue(byte[] bytes, String text) {
    public static final String SETTING = "unavailable.value.placeholder";
    private static final String HEX = "hex:";

    /** @throws IllegalArgumentException naming the setting, for {@code hex:} without an even count of hex digits */
    public static UnavailableValue of(String setting) {
        byte[] b;
        if (setting.startsWith(HEX)) {
            try {
                b = HexFormat.of().parseHex(setting.substring(HEX.length()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(SETTING + " starts with hex: but the rest is not pairs of hex digits ("
                        + e.getMessage() + "): give hex:5f5f..., or a placeholder without the prefix");
            }
        } else {
            b = setting.getBytes(UTF_8);
        }
        return new UnavailableValue(b, new String(b, UTF_8));
    }

    /**
     * The placeholder in a column's type. The text goes through the column's mask, hash or
     * truncation ({@code shaping}, null: none) as Debezium's does (its masks apply to whatever its
     * value converter gave, the placeholder included); a bytea's bytes stay whole, as Debezium's do
     * (its truncation cuts ByteBuffers, and its placeholder is a byte[]). Null for types that have none.
     */
    public Object in(Schema schema, UnaryOperator<Object> shaping) {
        return switch (schema.type()) {
            case STRING -> shaping == null ? text : shaping.apply(text);
            case BYTES -> ByteBuffer.wrap(bytes.clone());
            case ARRAY -> schema.valueSchema().type() == Schema.Type.STRING ? List.of(text) : null;
            default -> null;
        };
    }
}
