package io.pgrepl.codec.value;

import static io.pgrepl.codec.value.TextScan.bad;
import static io.pgrepl.codec.value.TextScan.checkRange;
import static io.pgrepl.codec.value.TextScan.floatText;
import static io.pgrepl.codec.value.TextScan.hex;
import static io.pgrepl.codec.value.TextScan.parseDouble;
import static io.pgrepl.codec.value.TextScan.parseLong;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.pgrepl.codec.Lsn;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Column values from their text (output function) or binary (send function) form. Every method
 * takes the value's absolute {@code index} and {@code length} in {@code buf} and never reads
 * outside them; bytes that do not fit the format raise {@link MalformedValueException}.
 *
 * <p>Text forms assume the settings a replication client sets: client_encoding UTF8,
 * DateStyle ISO, IntervalStyle postgres, extra_float_digits >= 1 or PG12+ defaults.
 *
 * <p>The primitive accessors ({@link #bool}, {@link #int2}, {@link #int4}, {@link #int8},
 * {@link #float4} and {@link #float8} in binary) do not allocate.
 */
public final class PgValues {
    private PgValues() {}

    /**
     * The value as the natural Java type for {@code typeOid}: bool→Boolean, int2→Short, int4→Integer, int8→Long, oid/xid→Long (unsigned), float4→Float, float8→Double, numeric→BigDecimal or Double NaN/±Infinity, text/varchar/bpchar/name/char/json/jsonb →String, bytea→byte[], uuid→UUID, date→LocalDate, time→LocalTime, timetz→OffsetTime, timestamp→LocalDateTime, timestamptz→Instant, interval→{@link PgInterval}, pg_lsn→{@link Lsn}, arrays of these→unmodifiable List (nested per dimension, null elements kept; lower bounds via {@link #arrayLowerBounds}). Infinite dates and times map to the MIN/MAX constants of their java.time class; time and timetz 24:00:00 (valid in PostgreSQL, not in java.time) map to {@link java.time.LocalTime#MAX} (23:59:59.999999999). Text intervals are read in IntervalStyle postgres only (the client sets it at startup). Unknown types: String for text format, byte[] for binary.
     *
     * @param typeOid the column's type OID, e.g. from a Relation message or RowDescription
     * @param binary  true for the binary (send) format, false for text (output)
     * @param buf     the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index   absolute index of the value's first byte
     * @param length  the value's length in bytes (not -1: NULL has no value to decode)
     * @return the decoded value, never null
     * @throws MalformedValueException if the bytes do not fit the format
     * @throws IllegalArgumentException if the range lies outside {@code buf}
     */
    public static Object decode(int typeOid, boolean binary, ByteBuf buf, int index, int length) {
        checkRange(buf, index, length);
        return switch (typeOid) {
            case PgType.BOOL -> bool(buf, index, length, binary);
            case PgType.INT2 -> int2(buf, index, length, binary);
            case PgType.INT4 -> int4(buf, index, length, binary);
            case PgType.INT8 -> int8(buf, index, length, binary);
            case PgType.OID, PgType.XID -> oid(buf, index, length, binary);
            case PgType.FLOAT4 -> float4(buf, index, length, binary);
            case PgType.FLOAT8 -> float8(buf, index, length, binary);
            case PgType.NUMERIC -> numeric(buf, index, length, binary);
            case PgType.TEXT, PgType.VARCHAR, PgType.BPCHAR, PgType.NAME, PgType.CHAR, PgType.UNKNOWN,
                    PgType.JSON -> text(buf, index, length);
            case PgType.JSONB -> jsonb(buf, index, length, binary);
            case PgType.BYTEA -> bytea(buf, index, length, binary);
            case PgType.UUID -> uuid(buf, index, length, binary);
            case PgType.DATE -> PgDateTime.date(buf, index, length, binary);
            case PgType.TIME -> PgDateTime.time(buf, index, length, binary);
            case PgType.TIMETZ -> PgDateTime.timetz(buf, index, length, binary);
            case PgType.TIMESTAMP -> PgDateTime.timestamp(buf, index, length, binary);
            case PgType.TIMESTAMPTZ -> PgDateTime.timestamptz(buf, index, length, binary);
            case PgType.INTERVAL -> PgDateTime.interval(buf, index, length, binary);
            case PgType.PG_LSN -> Lsn.of(pgLsn(buf, index, length, binary));
            default -> {
                int element = PgType.elementOf(typeOid);
                if (element != 0) yield PgArrays.decode(element, binary, buf, index, length);
                yield binary ? ByteBufUtil.getBytes(buf, index, length) : text(buf, index, length);
            }
        };
    }

    /**
     * The lower bound of each dimension of an array value (empty for an empty array), which the lists of {@link #decode} leave out: {@code '[0:1]={1,2}'} decodes to {@code [1, 2]} with lower bounds {@code {0}}. PostgreSQL's default lower bound is 1.
     *
     * @param arrayTypeOid the array type's OID, for error messages
     * @param binary       true for the binary (send) format, false for text (output)
     * @param buf          the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index        absolute index of the value's first byte
     * @param length       the value's length in bytes (not -1: NULL has no value to decode)
     * @return one lower bound per dimension
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static int[] arrayLowerBounds(int arrayTypeOid, boolean binary, ByteBuf buf, int index, int length) {
        checkRange(buf, index, length);
        return PgArrays.lowerBounds(PgType.name(arrayTypeOid), binary, buf, index, length);
    }

    /**
     * {@link #arrayLowerBounds(int, boolean, ByteBuf, int, int)} over the readable bytes of {@code value}.
     *
     * @param arrayTypeOid the array type's OID, for error messages
     * @param binary       true for the binary (send) format, false for text (output)
     * @param value        the value's bytes, readerIndex to writerIndex; not moved
     * @return one lower bound per dimension
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static int[] arrayLowerBounds(int arrayTypeOid, boolean binary, ByteBuf value) {
        return arrayLowerBounds(arrayTypeOid, binary, value, value.readerIndex(), value.readableBytes());
    }

    /**
     * {@link #decode(int, boolean, ByteBuf, int, int)} over the readable bytes of {@code value}.
     *
     * @param typeOid the column's type OID
     * @param binary  true for the binary (send) format, false for text (output)
     * @param value   the value's bytes, readerIndex to writerIndex; not moved
     * @return the decoded value, never null
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static Object decode(int typeOid, boolean binary, ByteBuf value) {
        return decode(typeOid, binary, value, value.readerIndex(), value.readableBytes());
    }

    /**
     * bool: one byte 1/0 in binary, {@code t}/{@code f} in text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the boolean
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static boolean bool(ByteBuf buf, int index, int length, boolean binary) {
        if (length == 1) {
            byte b = buf.getByte(index);
            if (binary ? b == 1 : b == 't') return true;
            if (binary ? b == 0 : b == 'f') return false;
        }
        throw bad("bool", 0, binary ? "expected one byte 0 or 1" : "expected 't' or 'f'");
    }

    /**
     * int2 (smallint): Int16 big-endian in binary, decimal in text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the value
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static short int2(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 2) throw bad("int2", 0, "binary int2 must be 2 bytes, got " + length);
            return buf.getShort(index);
        }
        long v = parseLong(buf, index, length, "int2");
        if (v != (short) v) throw bad("int2", 0, "out of range");
        return (short) v;
    }

    /**
     * int4 (integer): Int32 big-endian in binary (an Int16 is widened), decimal in text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the value
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static int int4(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length == 4) return buf.getInt(index);
            if (length == 2) return buf.getShort(index);
            throw bad("int4", 0, "binary int4 must be 4 bytes, got " + length);
        }
        long v = parseLong(buf, index, length, "int4");
        if (v != (int) v) throw bad("int4", 0, "out of range");
        return (int) v;
    }

    /**
     * int8; also accepts int2/int4 (by binary length) and oid text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the value
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static long int8(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            return switch (length) {
                case 8 -> buf.getLong(index);
                case 4 -> buf.getInt(index);
                case 2 -> buf.getShort(index);
                default -> throw bad("int8", 0, "binary integer must be 2, 4 or 8 bytes, got " + length);
            };
        }
        return parseLong(buf, index, length, "int8");
    }

    /**
     * {@link #int8(ByteBuf, int, int, boolean)} over the readable bytes of {@code value}.
     *
     * @param value  the value's bytes, readerIndex to writerIndex; not moved
     * @param binary true for the binary (send) format, false for text (output)
     * @return the value
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static long int8(ByteBuf value, boolean binary) {
        return int8(value, value.readerIndex(), value.readableBytes(), binary);
    }

    /**
     * {@link #int4(ByteBuf, int, int, boolean)} over the readable bytes of {@code value}.
     *
     * @param value  the value's bytes, readerIndex to writerIndex; not moved
     * @param binary true for the binary (send) format, false for text (output)
     * @return the value
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static int int4(ByteBuf value, boolean binary) {
        return int4(value, value.readerIndex(), value.readableBytes(), binary);
    }

    /**
     * {@link #bool(ByteBuf, int, int, boolean)} over the readable bytes of {@code value}.
     *
     * @param value  the value's bytes, readerIndex to writerIndex; not moved
     * @param binary true for the binary (send) format, false for text (output)
     * @return the boolean
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static boolean bool(ByteBuf value, boolean binary) {
        return bool(value, value.readerIndex(), value.readableBytes(), binary);
    }

    /**
     * oid or xid: unsigned 32-bit, as a long.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the value, 0 to 2<sup>32</sup>-1
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static long oid(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 4) throw bad("oid", 0, "binary oid must be 4 bytes, got " + length);
            return buf.getUnsignedInt(index);
        }
        long v = parseLong(buf, index, length, "oid");
        if (v < 0 || v > 0xFFFF_FFFFL) throw bad("oid", 0, "out of range");
        return v;
    }

    /**
     * float4 (real): IEEE 754 single in binary; decimal, {@code NaN} or {@code [-]Infinity} in text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the value
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static float float4(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 4) throw bad("float4", 0, "binary float4 must be 4 bytes, got " + length);
            return buf.getFloat(index);
        }
        String s = floatText(buf, index, length, "float4");
        try {
            return Float.parseFloat(s);
        } catch (NumberFormatException e) {
            throw bad("float4", 0, "not a number");
        }
    }

    /**
     * float8 (double precision): IEEE 754 double in binary (a float4 is widened); decimal, {@code NaN} or {@code [-]Infinity} in text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the value
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static double float8(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length == 8) return buf.getDouble(index);
            if (length == 4) return buf.getFloat(index);
            throw bad("float8", 0, "binary float8 must be 8 bytes, got " + length);
        }
        return parseDouble(buf, index, length, "float8");
    }

    /**
     * numeric: the NBASE-10000 digit form in binary, decimal in text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return a BigDecimal, or Double.NaN / Double.POSITIVE_INFINITY / Double.NEGATIVE_INFINITY
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static Number numeric(ByteBuf buf, int index, int length, boolean binary) {
        return binary ? PgNumeric.binary(buf, index, length) : PgNumeric.text(buf, index, length);
    }

    /**
     * The bytes as UTF-8 (text, varchar, bpchar, name, json; text or binary format alike).
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @return the decoded string
     */
    public static String text(ByteBuf buf, int index, int length) {
        return buf.toString(index, length, StandardCharsets.UTF_8);
    }

    /**
     * jsonb: binary format is a version byte (1) followed by the JSON text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the JSON text
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static String jsonb(ByteBuf buf, int index, int length, boolean binary) {
        if (!binary) return text(buf, index, length);
        if (length < 1 || buf.getByte(index) != 1) throw bad("jsonb", 0, "unsupported jsonb binary version");
        return text(buf, index + 1, length - 1);
    }

    /**
     * bytea: raw bytes in binary; {@code \x} hex or the pre-9.0 escape format in text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return a new array with the decoded bytes
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static byte[] bytea(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) return ByteBufUtil.getBytes(buf, index, length);
        if (length >= 2 && buf.getByte(index) == '\\' && buf.getByte(index + 1) == 'x') {
            int digits = length - 2;
            if ((digits & 1) != 0) throw bad("bytea", length, "odd number of hex digits");
            byte[] out = new byte[digits / 2];
            for (int i = 0; i < out.length; i++) {
                int hi = hex(buf.getByte(index + 2 + 2 * i));
                int lo = hex(buf.getByte(index + 3 + 2 * i));
                if (hi < 0 || lo < 0) throw bad("bytea", 2 + 2 * i, "not a hex digit");
                out[i] = (byte) (hi << 4 | lo);
            }
            return out;
        }
        byte[] out = new byte[length];
        int n = 0;
        for (int i = 0; i < length; i++) {
            byte b = buf.getByte(index + i);
            if (b != '\\') {
                out[n++] = b;
            } else if (i + 1 < length && buf.getByte(index + i + 1) == '\\') {
                out[n++] = '\\';
                i++;
            } else if (i + 3 < length && isOctal(buf.getByte(index + i + 1)) && isOctal(buf.getByte(index + i + 2))
                    && isOctal(buf.getByte(index + i + 3))) {
                int v = (buf.getByte(index + i + 1) - '0') << 6 | (buf.getByte(index + i + 2) - '0') << 3
                        | (buf.getByte(index + i + 3) - '0');
                if (v > 255) throw bad("bytea", i, "octal escape above \\377");
                out[n++] = (byte) v;
                i += 3;
            } else {
                throw bad("bytea", i, "invalid escape");
            }
        }
        return n == length ? out : java.util.Arrays.copyOf(out, n);
    }

    /**
     * uuid: 16 bytes in binary, 36 characters ({@code 8-4-4-4-12} hex digits) in text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the UUID
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static UUID uuid(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 16) throw bad("uuid", 0, "binary uuid must be 16 bytes, got " + length);
            return new UUID(buf.getLong(index), buf.getLong(index + 8));
        }
        if (length != 36) throw bad("uuid", 0, "text uuid must be 36 characters, got " + length);
        long hi = 0;
        long lo = 0;
        int nibbles = 0;
        for (int i = 0; i < 36; i++) {
            byte c = buf.getByte(index + i);
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (c != '-') throw bad("uuid", i, "expected '-'");
                continue;
            }
            int d = hex(c);
            if (d < 0) throw bad("uuid", i, "not a hex digit");
            if (nibbles++ < 16) hi = hi << 4 | d;
            else lo = lo << 4 | d;
        }
        return new UUID(hi, lo);
    }

    /**
     * pg_lsn: Int64 in binary, {@code X/X} in text.
     *
     * @param buf    the buffer holding the value, e.g. a tuple or DataRow frame
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes (not -1: NULL has no value to decode)
     * @param binary true for the binary (send) format, false for text (output)
     * @return the LSN
     * @throws MalformedValueException if the bytes do not fit the format
     */
    public static long pgLsn(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 8) throw bad("pg_lsn", 0, "binary pg_lsn must be 8 bytes, got " + length);
            return buf.getLong(index);
        }
        try {
            return Lsn.parse(text(buf, index, length));
        } catch (IllegalArgumentException e) {
            throw bad("pg_lsn", 0, "not X/X");
        }
    }

    private static boolean isOctal(byte c) {
        return c >= '0' && c <= '7';
    }
}
