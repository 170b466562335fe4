package io.pgrepl.codec.value;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Arrays as nested unmodifiable lists (one level per dimension; NULL elements stay null).
 * Binary (array_send): Int32 ndim, Int32 has-null flag, Int32 element OID, ndim × (Int32 size,
 * Int32 lower bound), then per element Int32 length (-1 = NULL) and bytes.
 * Text (array_out): {@code {a,"b c",NULL}}, optionally preceded by {@code [lo:hi]=} when a lower
 * bound is not 1; quoted elements use backslash escapes. Lower bounds are not in the lists (a list
 * index is always 0-based); {@link #lowerBounds} reads them.
 */
final class PgArrays {
    /** MAXDIM in the server. */
    private static final int MAX_DIMS = 6;

    private PgArrays() {}

    static List<Object> decode(int elementOid, boolean binary, ByteBuf buf, int index, int length) {
        String type = PgType.name(elementOid) + "[]";
        return binary ? binary(elementOid, type, buf, index, length) : new TextParser(elementOid, type, buf, index, length).parse();
    }

    static int[] lowerBounds(String type, boolean binary, ByteBuf buf, int index, int length) {
        if (binary) {
            if (length < 12) throw TextScan.bad(type, 0, "binary array needs a 12-byte header, got " + length);
            int ndim = buf.getInt(index);
            if (ndim < 0 || ndim > MAX_DIMS) throw TextScan.bad(type, 0, "dimension count " + ndim + " outside 0.." + MAX_DIMS);
            if (12 + 8 * ndim > length) throw TextScan.bad(type, 12, "dimensions do not fit");
            int[] lb = new int[ndim];
            for (int d = 0; d < ndim; d++) lb[d] = buf.getInt(index + 16 + 8 * d);
            return lb;
        }
        int end = index + length;
        if (length > 0 && buf.getByte(index) == '[') {
            // [lo:hi][lo:hi]=...: one bracket per dimension.
            List<Integer> lbs = new ArrayList<>();
            int pos = index;
            while (pos < end && buf.getByte(pos) == '[') {
                int colon = buf.indexOf(pos, end, (byte) ':');
                int close = buf.indexOf(pos, end, (byte) ']');
                if (colon < 0 || close < colon || lbs.size() == MAX_DIMS) throw TextScan.bad(type, pos - index, "bad dimension decoration");
                lbs.add((int) bound(type, buf, pos + 1, colon - pos - 1, pos - index));
                bound(type, buf, colon + 1, close - colon - 1, colon - index);
                pos = close + 1;
            }
            if (pos >= end || buf.getByte(pos) != '=') throw TextScan.bad(type, pos - index, "expected '=' after the dimensions");
            int[] lb = new int[lbs.size()];
            for (int i = 0; i < lb.length; i++) lb[i] = lbs.get(i);
            return lb;
        }
        // No decoration: every lower bound is 1; the dimensions are the leading braces ("{}" has none).
        int dims = 0;
        while (index + dims < end && buf.getByte(index + dims) == '{') dims++;
        if (dims == 0) throw TextScan.bad(type, 0, "expected '{'");
        if (dims == 1 && length >= 2 && buf.getByte(index + 1) == '}') return new int[0];
        if (dims > MAX_DIMS) throw TextScan.bad(type, 0, "more than " + MAX_DIMS + " dimensions");
        int[] lb = new int[dims];
        java.util.Arrays.fill(lb, 1);
        return lb;
    }

    private static long bound(String type, ByteBuf buf, int from, int len, int offset) {
        long v;
        try {
            v = TextScan.parseLong(buf, from, len, type);
        } catch (MalformedValueException e) {
            throw TextScan.bad(type, offset, "bad dimension bound");
        }
        if (v != (int) v) throw TextScan.bad(type, offset, "dimension bound out of range");
        return v;
    }

    private static List<Object> binary(int elementOid, String type, ByteBuf buf, int index, int length) {
        if (length < 12) throw TextScan.bad(type, 0, "binary array needs a 12-byte header, got " + length);
        int ndim = buf.getInt(index);
        int flags = buf.getInt(index + 4);
        if (ndim < 0 || ndim > MAX_DIMS) throw TextScan.bad(type, 0, "dimension count " + ndim + " outside 0.." + MAX_DIMS);
        if (flags != 0 && flags != 1) throw TextScan.bad(type, 4, "invalid flags " + flags);
        int pos = 12 + 8 * ndim;
        if (pos > length) throw TextScan.bad(type, 12, "dimensions do not fit");
        if (ndim == 0) return List.of();
        int[] dims = new int[ndim];
        long total = 1;
        for (int d = 0; d < ndim; d++) {
            dims[d] = buf.getInt(index + 12 + 8 * d);
            if (dims[d] < 0) throw TextScan.bad(type, 12 + 8 * d, "negative dimension");
            total *= dims[d];
            // Every element takes at least its 4-byte length: bound the count before allocating.
            if (total > (length - pos) / 4) throw TextScan.bad(type, 12 + 8 * d, "more elements than bytes");
        }
        Object[] elements = new Object[(int) total];
        for (int i = 0; i < elements.length; i++) {
            if (pos > length - 4) throw TextScan.bad(type, pos, "element length truncated");
            int len = buf.getInt(index + pos);
            pos += 4;
            if (len == -1) continue;
            if (len < 0 || len > length - pos) throw TextScan.bad(type, pos - 4, "element length " + len + " out of range");
            elements[i] = PgValues.decode(elementOid, true, buf, index + pos, len);
            pos += len;
        }
        return nest(elements, dims, 0, 0);
    }

    private static List<Object> nest(Object[] flat, int[] dims, int d, int from) {
        int n = dims[d];
        Object[] out = new Object[n];
        if (d == dims.length - 1) {
            System.arraycopy(flat, from, out, 0, n);
        } else {
            int stride = 1;
            for (int k = d + 1; k < dims.length; k++) stride *= dims[k];
            for (int i = 0; i < n; i++) out[i] = nest(flat, dims, d + 1, from + i * stride);
        }
        return Collections.unmodifiableList(java.util.Arrays.asList(out));
    }

    private static final class TextParser {
        final int elementOid;
        final String type;
        final ByteBuf buf;
        final int base;
        final int end;
        int pos;

        TextParser(int elementOid, String type, ByteBuf buf, int index, int length) {
            this.elementOid = elementOid;
            this.type = type;
            this.buf = buf;
            this.base = index;
            this.end = index + length;
            this.pos = index;
        }

        List<Object> parse() {
            if (pos < end && buf.getByte(pos) == '[') {
                int eq = buf.indexOf(pos, end, (byte) '=');
                if (eq < 0) throw TextScan.bad(type, 0, "dimension decoration without '='");
                pos = eq + 1;
            }
            List<Object> list = list(1);
            if (pos != end) throw TextScan.bad(type, pos - base, "unexpected text after the array");
            return list;
        }

        private byte peek() {
            if (pos >= end) throw TextScan.bad(type, pos - base, "array text ends early");
            return buf.getByte(pos);
        }

        private List<Object> list(int depth) {
            if (depth > MAX_DIMS) throw TextScan.bad(type, pos - base, "more than " + MAX_DIMS + " dimensions");
            if (peek() != '{') throw TextScan.bad(type, pos - base, "expected '{'");
            pos++;
            List<Object> out = new ArrayList<>();
            if (peek() == '}') {
                pos++;
                return Collections.unmodifiableList(out);
            }
            while (true) {
                byte c = peek();
                if (c == '{') out.add(list(depth + 1));
                else if (c == '"') out.add(quoted());
                else out.add(unquoted());
                c = peek();
                pos++;
                if (c == '}') return Collections.unmodifiableList(out);
                if (c != ',') throw TextScan.bad(type, pos - 1 - base, "expected ',' or '}'");
            }
        }

        private Object quoted() {
            pos++;
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            while (true) {
                byte c = peek();
                pos++;
                if (c == '"') break;
                if (c == '\\') {
                    c = peek();
                    pos++;
                }
                bytes.write(c);
            }
            byte[] b = bytes.toByteArray();
            return PgValues.decode(elementOid, false, Unpooled.wrappedBuffer(b), 0, b.length);
        }

        private Object unquoted() {
            int from = pos;
            while (true) {
                byte c = peek();
                if (c == ',' || c == '}') break;
                if (c == '{' || c == '"' || c == '\\') throw TextScan.bad(type, pos - base, "unexpected character in element");
                pos++;
            }
            int len = pos - from;
            if (len == 0) throw TextScan.bad(type, from - base, "empty element");
            if (len == 4 && (buf.getByte(from) | 0x20) == 'n' && (buf.getByte(from + 1) | 0x20) == 'u'
                    && (buf.getByte(from + 2) | 0x20) == 'l' && (buf.getByte(from + 3) | 0x20) == 'l') {
                return null;
            }
            return PgValues.decode(elementOid, false, buf, from, len);
        }
    }
}
