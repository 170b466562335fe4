package io.pgrepl.client.tx;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Tuple;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Builders for hand-written pgoutput record sequences. */
final class Recs {
    private Recs() {}

    static final int REL = 16384;

    static Relation relation(long xid) {
        return new Relation(xid, REL, "public", "t", 'd',
                List.of(new ColumnInfo(1, "id", 23, -1), new ColumnInfo(0, "v", 25, -1)));
    }

    static Insert insert(long xid, int id, String v) {
        return new Insert(xid, REL, tuple(id, v));
    }

    static Tuple tuple(int id, String v) {
        return new Tuple(List.of(new ColumnValue("id", 23, ColumnKind.TEXT, Integer.toString(id).getBytes(StandardCharsets.UTF_8)),
                v == null ? new ColumnValue("v", 25, ColumnKind.NULL, null)
                        : new ColumnValue("v", 25, ColumnKind.TEXT, v.getBytes(StandardCharsets.UTF_8))));
    }

    /** The id column of an Insert. */
    static int id(Object r) {
        return Integer.parseInt(((Insert) r).newTuple().get("id").text());
    }
}
