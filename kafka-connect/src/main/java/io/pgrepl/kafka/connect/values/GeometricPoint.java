package io.pgrepl.kafka.connect.values;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/** point, as Debezium's {@code io.debezium.data.geometry.Point}: x, y, its well-known binary form and no SRID. */
final class GeometricPoint {
    static final String NAME = "io.debezium.data.geometry.Point";

    private GeometricPoint() {}

    static SchemaBuilder builder() {
        return SchemaBuilder.struct().name(NAME).version(1).doc("Geometry (POINT)")
                .field("x", Schema.FLOAT64_SCHEMA).field("y", Schema.FLOAT64_SCHEMA)
                .field("wkb", Schema.OPTIONAL_BYTES_SCHEMA).field("srid", Schema.OPTIONAL_INT32_SCHEMA);
    }

    /** {@code (x,y)}, point's text form, as a struct of {@code schema}. */
    static Struct of(Schema schema, String text) {
        String t = text.trim();
        if (t.length() < 5 || t.charAt(0) != '(' || t.charAt(t.length() - 1) != ')') {
            throw new IllegalArgumentException("not a point: " + text);
        }
        int comma = t.indexOf(',');
        double x = Double.parseDouble(t.substring(1, comma));
        double y = Double.parseDouble(t.substring(comma + 1, t.length() - 1));
        // WKB: little-endian, type 1 (Point), x, y
        byte[] wkb = ByteBuffer.allocate(21).order(ByteOrder.LITTLE_ENDIAN).put((byte) 1).putInt(1).putDouble(x).putDouble(y).array();
        return new Struct(schema).put("x", x).put("y", y).put("wkb", wkb);
    }
}
