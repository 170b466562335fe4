package io.pgrepl.codec.pgoutput.record;

import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.value.PgValues;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One copied column value. {@code bytes} is null unless the kind is TEXT or BINARY; NULL,
 * UNCHANGED_TOAST and ABSENT stay distinct. Don't modify {@code bytes}.
 *
 * @param name    the column's name, from the Relation message
 * @param typeOid the column's type OID
 * @param kind    what the column holds: a text or binary value, NULL, unchanged TOAST, or absent
 * @param bytes   the value's bytes as sent, or null unless kind is TEXT or BINARY
 */
public record ColumnValue(String name, int typeOid, ColumnKind kind, byte[] bytes) {
    /**
     * A column value.
     *
     * @param name    the column name
     * @param typeOid the column's type OID
     * @param kind    what was sent
     * @param bytes   the value bytes for TEXT and BINARY, else null
     * @throws IllegalArgumentException if {@code bytes} does not match {@code kind}
     */
    public ColumnValue {
        if (kind.hasValue() != (bytes != null)) {
            throw new IllegalArgumentException(kind + (bytes == null ? " needs bytes" : " cannot have bytes"));
        }
    }

    /**
     * The bytes as UTF-8 (the value in text format).
     *
     * @return the text, or null without bytes
     */
    public String text() {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * The value as a Java object per {@link PgValues#decode}: Integer, BigDecimal, Instant, List, ...
     *
     * @return the typed value; null unless TEXT or BINARY
     */
    public Object decode() {
        if (bytes == null) return null;
        return PgValues.decode(typeOid, kind == ColumnKind.BINARY, Unpooled.wrappedBuffer(bytes), 0, bytes.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ColumnValue v && v.typeOid == typeOid && v.kind == kind && v.name.equals(name)
                && Arrays.equals(v.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return (name.hashCode() * 31 + kind.hashCode()) * 31 + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return name + ":" + kind + (bytes == null ? "" : "(" + bytes.length + " bytes)");
    }
}
