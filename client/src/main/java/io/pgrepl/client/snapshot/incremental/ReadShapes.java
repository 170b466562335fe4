package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.client.schema.SchemaTracker;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;

/**
 * Keeps reads and streamed rows of a table in one shape at a time. A table's reads are decoded with
 * the columns its plan found in the catalog; the stream's rows with its latest Relation. When a
 * chunk is about to go out and the stream delivered the table in another shape since the chunk
 * started (an ALTER TABLE committed meanwhile), the chunk is not emitted: the table is planned
 * again and read on from its last emitted key. That keeps old-shape reads from following rows of
 * a new shape, and it also drops chunks whose snapshot predates a table rewrite (ALTER COLUMN TYPE
 * rewrites the table, and a rewrite is not MVCC-safe: an older snapshot sees its rows as missing,
 * so such a chunk would come out short and end the table early). The same when the plan's columns
 * differ from the stream's current shape. Should the new plan still differ (the catalog
 * is ahead of the stream: a statement whose table has had no row since), the reads go out in the
 * catalog's shape and the stream's schema tracker announces it first, as the Relation of the
 * table's next row would have; that Relation then repeats it and announces nothing.
 */
final class ReadShapes {
    private ReadShapes() {}

    /**
     * Decides about a chunk of {@code t} about to be emitted.
     *
     * @return true when the table must be planned again instead (the chunk is not emitted)
     */
    static boolean replan(Chunk ch, SchemaTracker tracker, SnapshotReadHandler handler) {
        TableRun t = ch.table;
        RelationInfo streamed = tracker.shape(t.relation.oid());
        if (streamed != null && !streamed.equals(ch.streamShapeAtStart)) return true;
        if (streamed == null || same(t.relation, streamed)) return false;
        if (t.replannedFor != streamed) return true;
        SchemaChange c = tracker.relation(t.relation);
        if (c != null) handler.onSchemaChange(c);
        return false;
    }

    /**
     * Whether a chunk's read failed because a column of its plan is gone (42703: dropped or renamed
     * since the table was planned): the table is then planned again rather than failed.
     */
    static boolean columnGone(Throwable e) {
        Throwable c = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        return c instanceof io.pgrepl.client.PgException p && "42703".equals(p.sqlState());
    }

    /** Same columns (names, types; type modifiers where the plan knows them) in the same order. */
    static boolean same(RelationInfo read, RelationInfo streamed) {
        if (read.columnCount() != streamed.columnCount()) return false;
        for (int i = 0; i < read.columnCount(); i++) {
            ColumnInfo r = read.column(i);
            ColumnInfo s = streamed.column(i);
            if (!r.name().equals(s.name()) || r.typeOid() != s.typeOid()) return false;
            if (r.typmod() != -1 && r.typmod() != s.typmod()) return false;
        }
        return true;
    }
}
