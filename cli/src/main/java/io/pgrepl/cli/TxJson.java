package io.pgrepl.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.client.snapshot.incremental.SnapshotSignals;
import io.pgrepl.client.tx.NonTransactionalMessage;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TwoPhaseOutcome;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Truncate;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Type;
import io.pgrepl.codec.pgoutput.record.Update;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The {@code --format json} writer: each committed transaction as a {@code begin} line, one line
 * per change with typed values (see {@link ValueJson}), and a {@code commit} line. The columns'
 * type names (--column-types) go nowhere (the default: the values are typed already), on a
 * {@code relation} line before the first change of a table in this run and again when its
 * definition (or a type name) changes, or on every change line (see docs/cli.md). Runs on the printing thread; reads spilled transactions back from disk
 * and hands the bytes to the output every {@link JsonBytes#CHUNK}, so a huge transaction never
 * sits in memory as text.
 */
final class TxJson {
    private final boolean binary;
    /** --column-types change: the type names on every change line. */
    private final boolean typesPerChange;
    /** --column-types relation: the type names on relation lines. */
    private final boolean relationLines;
    private final JsonBytes o = new JsonBytes();
    /** Type names from Type messages (user-defined types); built-in ones come from {@link TypeNames}. */
    private final Map<Integer, String> typeNames = new HashMap<>();
    /** Per relation OID: the Relation it was rendered from and its {@code "schema"...column_types} bytes. */
    private final Map<Integer, Rendered> relations = new HashMap<>();

    /**
     * {@code keys}: each column's {@code "name":}, encoded once per relation instead of once per
     * value; {@code line}: the relation line (null unless --column-types relation); {@code announced}:
     * that line was written.
     */
    private static final class Rendered {
        final Relation relation;
        final byte[] head;
        final byte[][] keys;
        final byte[] line;
        boolean announced;

        Rendered(Relation relation, byte[] head, byte[][] keys, byte[] line) {
            this.relation = relation;
            this.head = head;
            this.keys = keys;
            this.line = line;
        }
    }

    TxJson(boolean binary) {
        this(binary, StreamOptions.ColumnTypes.NONE);
    }

    TxJson(boolean binary, StreamOptions.ColumnTypes types) {
        this(binary, types, null);
    }

    /** {@code signalTable}: --signal-table ({@code schema.table}, unquoted), whose rows are signals, not changes; or null. */
    TxJson(boolean binary, StreamOptions.ColumnTypes types, String signalTable) {
        this.binary = binary;
        this.signalTable = signalTable;
        this.typesPerChange = types == StreamOptions.ColumnTypes.CHANGE;
        this.relationLines = types == StreamOptions.ColumnTypes.RELATION;
    }

    /** --schema-changes: its tracker (commit order, across reconnects), else null. */
    private io.pgrepl.client.schema.SchemaTracker schema;
    /** False when pgoutput messages are on only for DDL capture: no message lines then. */
    private boolean messageLines = true;

    /**
     * --schema-changes: a {@code schema} line ({@link SchemaJson}) before the first change of a new
     * shape, and for CREATE and DROP; DDL capture messages become part of those lines, not message lines.
     *
     * @param tracker      the tracker, fed the transactions' records in commit order
     * @param messageLines whether other logical messages print (--messages was given)
     */
    TxJson schemaChanges(io.pgrepl.client.schema.SchemaTracker tracker, boolean messageLines) {
        this.schema = tracker;
        this.messageLines = messageLines;
        return this;
    }

    /** Writes the schema line of whatever {@code r} tells. */
    private void schemaLine(Transaction tx, PgOutputRecord r) {
        io.pgrepl.client.schema.SchemaChange c = schema.accept(r);
        if (c == null) return;
        o.raw(SchemaJson.line(c, tx.xid(), null, this::typeName).getBytes(StandardCharsets.UTF_8));
        changes++;
    }

    /**
     * Renders the event's lines into the buffer, handing full chunks to {@code out}; the rest
     * stays buffered until {@link #drain}. Returns whether the event printed anything.
     */
    boolean write(TxEvent e, OutputStream out) throws IOException {
        int before = o.length();
        if (e instanceof Transaction tx) {
            if (!transaction(tx, out)) return false;
        } else if (e instanceof NonTransactionalMessage m) {
            if (!messageLines) return false;
            message(m.message(), -1);
        } else if (e instanceof TwoPhaseOutcome t) {
            if (!t.committed() || t.changesKept()) return false; // rolled back: nothing was committed
            // The PREPARE was confirmed before this run, so its changes are not available here.
            o.ascii("{\"type\":\"commit_prepared\",\"xid\":").num(t.xid()).ascii(",\"gid\":").str(t.gid())
                    .ascii(",\"end_lsn\":").lsn(t.endLsn()).ascii(",\"commit_time\":").str(time(t.timeMicros()))
                    .ascii(",\"changes\":\"unavailable\"}\n");
        }
        o.drainIfFull(out);
        return o.length() != before || e instanceof Transaction;
    }

    /** Bytes rendered and not yet handed to the output. */
    int buffered() {
        return o.length();
    }

    /** Hands everything rendered to {@code out}. */
    void drain(OutputStream out) throws IOException {
        o.drain(out);
    }

    /** Change lines written for the current transaction. */
    private int changes;
    /** Signal lines of the current transaction: pgrepl's logical messages and rows of the signal table. */
    private int signals;
    private final String signalTable;

    /** Signal lines of the last transaction written, counted apart from its changes. */
    int signalsWritten() {
        return signals;
    }

    /** Change lines of the last transaction written (its Relation and Type records print none). */
    int changesWritten() {
        return changes;
    }

    private boolean transaction(Transaction tx, OutputStream out) throws IOException {
        int mark = o.length();
        changes = 0;
        signals = 0;
        o.ascii("{\"type\":\"begin\",\"xid\":").num(tx.xid()).ascii(",\"commit_lsn\":").lsn(tx.commitLsn())
                .ascii(",\"end_lsn\":").lsn(tx.endLsn()).ascii(",\"commit_time\":").str(time(tx.commitTimeMicros()));
        if (tx.gid() != null) o.ascii(",\"gid\":").str(tx.gid());
        if (tx.origin() != null) o.ascii(",\"origin\":").str(tx.origin());
        if (tx.streamed()) o.ascii(",\"streamed\":true");
        o.ascii("}\n");
        if (schema != null) schema.begin();
        for (PgOutputRecord r : tx.changes()) {
            change(tx, r);
            o.drainIfFull(out);
        }
        if (changes == 0 && signals == 0) {
            // Nothing of the publications in it (servers before 15 send such transactions): no lines.
            o.truncate(mark);
            return false;
        }
        o.ascii("{\"type\":\"commit\",\"xid\":").num(tx.xid()).ascii(",\"commit_lsn\":").lsn(tx.commitLsn())
                .ascii(",\"end_lsn\":").lsn(tx.endLsn()).ascii(",\"commit_time\":").str(time(tx.commitTimeMicros()))
                .ascii("}\n");
        return true;
    }

    private void change(Transaction tx, PgOutputRecord r) {
        if (r instanceof Insert i) {
            Rendered rel = dml("insert", tx, i.relationOid());
            tuple("new", i.newTuple(), rel);
            toast(i.newTuple());
        } else if (r instanceof Update u) {
            Rendered rel = dml("update", tx, u.relationOid());
            if (u.oldTuple() != null) tuple(u.oldTupleKind() == 'K' ? "key" : "old", u.oldTuple(), rel);
            tuple("new", u.newTuple(), rel);
            toast(u.newTuple());
        } else if (r instanceof Delete d) {
            Rendered rel = dml("delete", tx, d.relationOid());
            tuple(d.oldTupleKind() == 'K' ? "key" : "old", d.oldTuple(), rel);
        } else if (r instanceof Truncate t) {
            o.ascii("{\"type\":\"truncate\",\"xid\":").num(tx.xid()).ascii(",\"relations\":[");
            for (int i = 0; i < t.relationOids().size(); i++) {
                if (i > 0) o.raw(',');
                int oid = t.relationOids().get(i);
                Relation rel = relation(tx, oid);
                o.ascii("{\"schema\":").str(rel == null ? null : schema(rel)).ascii(",\"table\":")
                        .str(rel == null ? null : rel.name()).ascii(",\"relation_id\":").num(Integer.toUnsignedLong(oid)).raw('}');
            }
            o.ascii("],\"cascade\":").ascii((t.options() & 1) != 0 ? "true" : "false")
                    .ascii(",\"restart_identity\":").ascii((t.options() & 2) != 0 ? "true" : "false");
        } else if (r instanceof Message m) {
            if (schema != null && io.pgrepl.client.schema.SchemaTracker.DDL_PREFIX.equals(m.prefix())) {
                schemaLine(tx, m); // DDL capture's messages print as schema lines only
                return;
            }
            if (!messageLines) return;
            message(m, tx.xid()); // the message's own xid field is sent only inside a streamed transaction
            if (SnapshotSignals.MESSAGE_PREFIX.equals(m.prefix())) signals++;
            else changes++;
            return;
        } else if (r instanceof Relation rel) {
            if (schema != null) schemaLine(tx, rel);
            // In stream order: changes after it use it. The same definition sent again (each new
            // session sends it) is not announced again.
            Rendered before = relations.get(rel.oid());
            Rendered now = render(rel, rel.oid());
            now.announced = before != null && before.announced && java.util.Arrays.equals(before.line, now.line);
            relations.put(rel.oid(), now);
            return;
        } else if (r instanceof Type t) {
            if (schema != null) schema.accept(t);
            String name = t.namespace().isEmpty() || t.namespace().equals("pg_catalog") ? t.name()
                    : t.namespace() + "." + t.name();
            if (!name.equals(typeNames.put(t.oid(), name))) {
                relations.replaceAll((oid, rendered) -> render(rendered.relation, oid)); // type names changed: announced again
            }
            return;
        } else {
            return; // Origin: on the begin line
        }
        o.ascii("}\n");
        if (r instanceof Insert i && isSignalTable(tx.relation(i.relationOid()))) signals++;
        else changes++;
    }

    private boolean isSignalTable(Relation rel) {
        return signalTable != null && rel != null && signalTable.equals(schema(rel) + "." + rel.name());
    }

    /** {@code xid} -1: not transactional. */
    private void message(Message m, long xid) {
        boolean transactional = xid != -1;
        o.ascii("{\"type\":\"message\"");
        if (transactional) o.ascii(",\"xid\":").num(xid);
        o.ascii(",\"transactional\":").ascii(transactional ? "true" : "false")
                .ascii(",\"message_lsn\":").lsn(m.messageLsn()).ascii(",\"prefix\":").str(m.prefix());
        byte[] c = m.content();
        if (isUtf8(c)) o.ascii(",\"content\":").utf8(c, 0, c.length);
        else o.ascii(",\"content_base64\":").base64(c, 0, c.length);
        o.ascii("}\n");
    }

    private Rendered dml(String type, Transaction tx, int relationOid) {
        Rendered r = relations.get(relationOid);
        if (r == null) {
            r = render(tx.relation(relationOid), relationOid);
            relations.put(relationOid, r);
        }
        if (r.line != null && !r.announced) {
            o.raw(r.line);
            r.announced = true;
        }
        o.ascii("{\"type\":\"").ascii(type).ascii("\",\"xid\":").num(tx.xid());
        o.raw(r.head);
        return r;
    }

    private Relation relation(Transaction tx, int oid) {
        Rendered r = relations.get(oid);
        return r != null && r.relation != null ? r.relation : tx.relation(oid);
    }

    private Rendered render(Relation rel, int oid) {
        JsonBytes h = new JsonBytes();
        if (rel == null) {
            // Without its Relation message only the OID is known (cannot happen with pgoutput).
            h.ascii(",\"schema\":null,\"table\":null,\"relation_id\":").num(Integer.toUnsignedLong(oid));
            return new Rendered(null, h.take(), new byte[0][], null);
        }
        relationHead(h, schema(rel), rel.name(), rel.columns(), typesPerChange ? this::typeName : null);
        byte[] line = null;
        if (relationLines) {
            JsonBytes l = new JsonBytes();
            l.ascii("{\"type\":\"relation\",\"relation_id\":").num(Integer.toUnsignedLong(oid));
            relationHead(l, schema(rel), rel.name(), rel.columns(), this::typeName);
            line = l.ascii("}\n").take();
        }
        return new Rendered(rel, h.take(), keys(rel.columns()), line);
    }

    /**
     * {@code ,"schema":…,"table":…[,"column_types":{…}][,"key_columns":[…]]}: the part of a change
     * line that names its table, shared with the relation line and the snapshot's read lines
     * ({@link SnapshotSource}); {@code typeName} null: without column_types.
     */
    static void relationHead(JsonBytes h, String schema, String table, List<ColumnInfo> columns, IntFunction<String> typeName) {
        h.ascii(",\"schema\":").str(schema).ascii(",\"table\":").str(table);
        if (typeName != null) {
            h.ascii(",\"column_types\":{");
            for (int i = 0; i < columns.size(); i++) {
                ColumnInfo c = columns.get(i);
                if (i > 0) h.raw(',');
                h.str(c.name()).raw(':').str(typeName.apply(c.typeOid()));
            }
            h.raw('}');
        }
        boolean any = false;
        for (ColumnInfo c : columns) {
            if (!c.isKey()) continue;
            h.ascii(any ? "," : ",\"key_columns\":[").str(c.name());
            any = true;
        }
        if (any) h.raw(']');
    }

    /** Each column's {@code "name":} as JSON bytes. */
    static byte[][] keys(List<ColumnInfo> columns) {
        byte[][] keys = new byte[columns.size()][];
        JsonBytes k = new JsonBytes();
        for (int i = 0; i < keys.length; i++) keys[i] = k.str(columns.get(i).name()).raw(':').take();
        return keys;
    }

    private String typeName(int oid) {
        String n = typeNames.get(oid);
        return n != null ? n : TypeNames.name(oid);
    }

    private static String schema(Relation rel) {
        return rel.namespace().isEmpty() ? "pg_catalog" : rel.namespace();
    }

    private void tuple(String name, Tuple t, Rendered rel) {
        o.ascii(",\"").ascii(name).ascii("\":{");
        boolean first = true;
        byte[][] keys = rel.keys.length == t.size() ? rel.keys : null;
        List<ColumnInfo> columns = keys != null ? rel.relation.columns() : null;
        // ValueJson reads each value in place from the tuple's one array: one wrapper per tuple,
        // no copy and no ColumnValue per value.
        ByteBuf values = null;
        for (int i = 0; i < t.size(); i++) {
            ColumnKind kind = t.kind(i);
            if (kind == ColumnKind.ABSENT || kind == ColumnKind.UNCHANGED_TOAST) continue;
            if (!first) o.raw(',');
            first = false;
            String column = t.name(i);
            // Checked by name: the tuple may have been decoded with another version of the relation.
            if (keys != null && column.equals(columns.get(i).name())) o.raw(keys[i]);
            else o.str(column).raw(':');
            if (kind == ColumnKind.NULL) {
                o.ascii("null");
                continue;
            }
            if (values == null) values = Unpooled.wrappedBuffer(t.array());
            ValueJson.write(o, t.typeOid(i), kind == ColumnKind.BINARY, values, t.valueOffset(i), t.valueLength(i));
        }
        o.raw('}');
    }

    /** Columns whose unchanged TOASTed value the server did not send: left out of {@code new}. */
    private void toast(Tuple t) {
        boolean any = false;
        for (int i = 0; i < t.size(); i++) {
            if (t.kind(i) != ColumnKind.UNCHANGED_TOAST) continue;
            o.ascii(any ? "," : ",\"unchanged_toast\":[").str(t.name(i));
            any = true;
        }
        if (any) o.raw(']');
    }

    private static String time(long pgMicros) {
        return PgTime.toInstant(pgMicros).toString();
    }

    private static boolean isUtf8(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
