package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Tuple;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** Test data shared by the decoder tests. */
final class Fixtures {
    static final int USERS = 16384;

    /** users(id int8 key, name text, bio text, avatar bytea): like a table with a primary key. */
    static final Relation USERS_RELATION = new Relation(0, USERS, "public", "users", 'd', List.of(
            new ColumnInfo(1, "id", 20, -1),
            new ColumnInfo(0, "name", 25, -1),
            new ColumnInfo(0, "bio", 25, -1),
            new ColumnInfo(0, "avatar", 17, -1)));

    private Fixtures() {}

    static ColumnValue text(String name, int oid, String v) {
        return new ColumnValue(name, oid, ColumnKind.TEXT, v.getBytes(StandardCharsets.UTF_8));
    }

    static ColumnValue binary(String name, int oid, int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) b[i] = (byte) v[i];
        return new ColumnValue(name, oid, ColumnKind.BINARY, b);
    }

    static ColumnValue kind(String name, int oid, ColumnKind k) {
        return new ColumnValue(name, oid, k, null);
    }

    static Tuple tuple(ColumnValue... values) {
        return new Tuple(Arrays.asList(values));
    }

    static ByteBuf hex(String hex) {
        String h = hex.replaceAll("\\s+", "");
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return Unpooled.wrappedBuffer(b);
    }
}
