package io.pgrepl.client.schema;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.record.Begin;
import io.pgrepl.codec.pgoutput.record.BeginPrepare;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.StreamAbort;
import io.pgrepl.codec.pgoutput.record.StreamCommit;
import io.pgrepl.codec.pgoutput.record.StreamPrepare;
import io.pgrepl.codec.pgoutput.record.StreamStart;
import io.pgrepl.codec.pgoutput.record.StreamStop;
import io.pgrepl.codec.pgoutput.record.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a stream's Relation messages, and the messages of pgrepl's DDL capture, into
 * {@link SchemaChange}s. Every face of a logical stream runs one (the handler face's
 * {@code onSchemaChange}, {@code ChangeEvent.schemaChange()}, {@code ChangeView.schemaChange()});
 * feed one yourself where records reach you another way, for example assembled transactions:
 * {@link #accept(PgOutputRecord)} on each record in order.
 *
 * <p>What it remembers: per relation id, the last shape it was given (a Relation), so a Relation
 * that repeats it (pgoutput sends every table's Relation again on each new connection, and after
 * any invalidation of the table's cache entry) yields nothing; the DDL captured for a table since
 * its last Relation, joined to the next one. Only Relation and DDL messages cost anything: row
 * changes never reach it.
 *
 * <p>Renames: pgoutput names columns but does not number them, so a renamed column looks like one
 * dropped and one added. DDL capture reports each {@code RENAME COLUMN} with the column's new name
 * and each dropped column by name; a renamed column keeps its place among the columns that survive
 * (its {@code attnum}), an added one always comes last, so within each stretch between surviving
 * columns the renamed-to columns are paired in order with the old columns neither kept nor dropped.
 *
 * <p>CREATE TABLE AS and SELECT INTO write the new table's rows before the statement's
 * {@code ddl_command_end} message; DDL capture marks their start ({@code ddl_command_start}), so
 * the first Relation of a table this tracker has no shape of that follows the mark in its
 * transaction is that table's: the CREATE is reported there, with the Relation as
 * {@link SchemaChange#after()}, and the statement's own message later adds nothing. Nothing is held
 * back, so a transaction of any size (spilled by the server, or streamed in blocks) costs the same.
 *
 * <p>Streamed (in-progress) transactions: a Relation inside a Stream Start … Stream Stop block is
 * compared with what that transaction saw before, else with the committed shape; what it learnt
 * becomes the committed shape at its Stream Commit (or Stream Prepare) and is forgotten at its
 * Stream Abort. A prepared transaction that is rolled back is not undone: the next Relation of its
 * tables then shows the change back, as an {@link SchemaChange.Kind#ALTER}.
 *
 * <p>Not thread-safe: one thread (a stream's event loop, or your consumer's thread).
 */
public final class SchemaTracker {
    /** The prefix of the logical messages pgrepl's DDL capture emits. */
    public static final String DDL_PREFIX = "pgrepl.ddl";
    /** Captured commands kept per table while waiting for its next Relation; older ones are dropped. */
    static final int MAX_PENDING = 256;
    private static final Logger log = LoggerFactory.getLogger(SchemaTracker.class);

    private final Set<String> publications;
    private final Context committed = new Context();
    private final Map<Long, Context> streamed = new HashMap<>();
    /** User-defined types by OID, {namespace, name}, from Type messages: a table described from its Relation names them. */
    private final Map<Integer, String[]> types = new HashMap<>();
    private Context current = committed;
    private boolean warnedMalformed;

    /**
     * A tracker for a stream of the given publications: DDL capture reports CREATE and DROP of
     * tables in every publication of the database, and only those of these publications (or of a
     * table this tracker has a shape for) become events.
     *
     * @param publications the stream's publication names; empty: every table
     */
    public SchemaTracker(Collection<String> publications) {
        this.publications = Set.copyOf(publications);
    }

    /**
     * Seeds a shape this stream's consumer already has, for example the {@link SchemaChange#after()}
     * it applied last before a restart: a Relation equal to it then yields nothing, instead of
     * {@link SchemaChange.Kind#FIRST_SEEN}.
     *
     * @param relation the shape, by its relation id
     */
    public void seed(RelationInfo relation) {
        committed.shapes.put(relation.oid(), relation);
    }

    /**
     * The shape this tracker holds for a relation id (in the open stream block's transaction, if any).
     *
     * @param relationId the table's OID
     * @return the last Relation given, or null
     */
    public RelationInfo shape(int relationId) {
        return current.shape(relationId, committed);
    }

    /**
     * A Relation message arrived.
     *
     * @param relation the relation it describes
     * @return the change, or null when it repeats the known shape and no captured DDL waits for it
     */
    public SchemaChange relation(RelationInfo relation) {
        Context c = current;
        int oid = relation.oid();
        RelationInfo before = c.shape(oid, committed);
        if (before == null && c.creating != null && !c.created.contains(oid) && !committed.created.contains(oid)) {
            return createdAt(c, relation);
        }
        List<DdlCommand> ddl = c.pending.remove(oid);
        if (ddl == null) ddl = List.of();
        c.shapes.put(oid, relation);
        c.dropped.remove(oid);
        c.created.remove(oid);
        if (before == null) {
            return new SchemaChange(SchemaChange.Kind.FIRST_SEEN, oid, null, relation, List.of(), List.of(), List.of(),
                    List.of(), false, false, ddl);
        }
        if (before.equals(relation) && ddl.isEmpty()) return null;
        return ShapeDiff.between(SchemaChange.Kind.ALTER, before, relation, ddl);
    }

    /** The CREATE of the table a CREATE TABLE AS (or SELECT INTO) marked by {@code c.creating} writes rows to. */
    private SchemaChange createdAt(Context c, RelationInfo relation) {
        DdlCommand start = c.creating;
        c.creating = null;
        int oid = relation.oid();
        c.pending.remove(oid);
        c.shapes.put(oid, relation);
        c.dropped.remove(oid);
        c.created.remove(oid);
        c.createdAtRelation.add(oid);
        List<CatalogColumn> cols = new ArrayList<>(relation.columnCount());
        for (int i = 0; i < relation.columnCount(); i++) {
            ColumnInfo col = relation.column(i);
            cols.add(new CatalogColumn(i + 1, col.name(), FormatType.of(col.typeOid(), col.typmod(), types::get), col.typeOid(),
                    col.typmod(), false, null, false));
        }
        CatalogTable table = new CatalogTable(relation.schema(), relation.name(), 'r', relation.replicaIdentity(), cols, List.of());
        DdlCommand d = new DdlCommand(DdlCommand.DDL_COMMAND_START, start.commandTag(), "table", relation.schema(), relation.name(),
                FormatType.quote(relation.schema()) + "." + FormatType.quote(relation.name()), oid, 0, null, start.query(), table, List.of());
        return new SchemaChange(SchemaChange.Kind.CREATE, oid, null, relation, List.of(), List.of(), List.of(), List.of(), false, false,
                List.of(d));
    }

    /**
     * A Type message arrived: a user-defined type's name, for tables described from their Relation
     * ({@link DdlCommand#DDL_COMMAND_START}).
     *
     * @param oid       the type's OID
     * @param namespace its schema, as sent (empty for pg_catalog)
     * @param name      its name
     */
    public void type(int oid, String namespace, String name) {
        types.put(oid, new String[] {namespace, name});
    }

    /**
     * A transaction begins (Begin, Begin Prepare): a CREATE TABLE AS of an earlier one that created
     * nothing ({@code IF NOT EXISTS} on an existing table) no longer waits for its table.
     */
    public void begin() {
        committed.creating = null;
    }

    /**
     * A logical message arrived: DDL capture's ({@value #DDL_PREFIX}, transactional) are read, others ignored.
     * A CREATE or DROP of a table yields its event at once; other statements wait for the table's next Relation.
     *
     * @param transactional whether the message is transactional (DDL capture's always are)
     * @param prefix        the message's prefix
     * @param content       its content, UTF-8
     * @return the CREATE or DROP, or null
     */
    public SchemaChange message(boolean transactional, String prefix, byte[] content) {
        if (!transactional || !DDL_PREFIX.equals(prefix)) return null;
        return ddl(new String(content, StandardCharsets.UTF_8));
    }

    /**
     * The content of a DDL capture message. A message that does not read as one is logged (once
     * per tracker) and skipped: the stream's Relation messages still tell the shape.
     *
     * @param json the message's content
     * @return the CREATE or DROP, or null
     */
    public SchemaChange ddl(String json) {
        // The script ends each statement's messages with an empty one (docs/ddl-capture.sql says why).
        if (json.isEmpty()) return null;
        DdlMessages.Parsed p;
        try {
            p = DdlMessages.parse(json);
        } catch (MalformedDdlMessageException e) {
            if (!warnedMalformed) {
                warnedMalformed = true;
                log.warn("{} message skipped (its table's Relation messages still tell its shape): {}", DDL_PREFIX, e.getMessage());
            }
            return null;
        }
        Context c = current;
        DdlCommand d = p.command();
        if (p.sameQuery()) {
            d = new DdlCommand(d.event(), d.commandTag(), d.objectType(), d.schema(), d.name(), d.identity(), d.relationId(),
                    d.attnum(), d.column(), c.lastQuery, d.table(), d.publications());
        } else {
            c.lastQuery = d.query();
        }
        if (d.isCreateStart()) {
            c.creating = d;
            return null;
        }
        int oid = d.relationId();
        if (d.isTableCreate()) {
            // Whether or not the stream has this table: the statement is over.
            c.creating = null;
            if (c.createdAtRelation.remove(oid)) return null; // reported at its first Relation, before its rows
        }
        if (!relevant(c, d)) return null;
        if (d.isTableCreate()) {
            RelationInfo known = c.shape(oid, committed);
            if (known != null && describes(d.table(), known)) {
                // Its Relation came first (a capture installed without the ddl_command_start trigger): the shape
                // is this table's, and a DROP reports it.
                c.pending.remove(oid);
            } else {
                c.forget(oid);
                c.created.add(oid);
            }
            return new SchemaChange(SchemaChange.Kind.CREATE, oid, null, null, List.of(), List.of(), List.of(), List.of(),
                    false, false, List.of(d));
        }
        if (d.isTableDrop()) {
            RelationInfo before = c.shape(oid, committed);
            List<DdlCommand> ddl = new ArrayList<>();
            List<DdlCommand> waiting = c.pending.get(oid);
            if (waiting == null && c != committed) waiting = committed.pending.get(oid);
            if (waiting != null) ddl.addAll(waiting);
            ddl.add(d);
            c.forget(oid);
            c.dropped.add(oid);
            return new SchemaChange(SchemaChange.Kind.DROP, oid, before, null, List.of(), List.of(), List.of(), List.of(),
                    false, false, ddl);
        }
        List<DdlCommand> waiting = c.pending.computeIfAbsent(oid, k -> new ArrayList<>());
        if (waiting.size() == MAX_PENDING) waiting.remove(0);
        waiting.add(d);
        return null;
    }

    /** Whether the catalog's table is the one the Relation describes (its published columns: all but generated ones). */
    private static boolean describes(CatalogTable table, RelationInfo r) {
        if (table == null || !table.schema().equals(r.schema()) || !table.name().equals(r.name())) return false;
        int i = 0;
        for (CatalogColumn c : table.columns()) {
            if (c.generated()) continue;
            if (i == r.columnCount()) return false;
            ColumnInfo col = r.column(i++);
            if (!col.name().equals(c.name()) || col.typeOid() != c.typeOid() || col.typmod() != c.typmod()) return false;
        }
        return i == r.columnCount();
    }

    private boolean relevant(Context c, DdlCommand d) {
        if (publications.isEmpty()) return true;
        int oid = d.relationId();
        if (c.shape(oid, committed) != null || c.created.contains(oid) || committed.created.contains(oid)) return true;
        for (String p : d.publications()) if (publications.contains(p)) return true;
        return false;
    }

    /**
     * A new connection starts streaming: streamed transactions left open by the previous one are
     * sent again from their first block, so what they taught is forgotten (a consumer discards them
     * too) and their Relations are compared afresh. Shapes of committed transactions are kept.
     */
    public void newConnection() {
        streamed.clear();
        current = committed;
    }

    /**
     * Stream Start: what follows belongs to transaction {@code xid} until {@link #streamStop()}.
     *
     * @param xid the streamed transaction's xid
     */
    public void streamStart(long xid) {
        current = streamed.computeIfAbsent(xid, k -> new Context());
    }

    /** Stream Stop: back to committed transactions. */
    public void streamStop() {
        current = committed;
    }

    /**
     * Stream Commit or Stream Prepare: what transaction {@code xid} learnt is now the committed shape.
     *
     * @param xid the streamed transaction's xid
     */
    public void streamCommit(long xid) {
        Context c = streamed.remove(xid);
        if (c == null) return;
        for (int oid : c.dropped) committed.forget(oid);
        committed.shapes.putAll(c.shapes);
        committed.created.addAll(c.created);
        committed.createdAtRelation.addAll(c.createdAtRelation);
        c.pending.forEach((oid, l) -> committed.pending.computeIfAbsent(oid, k -> new ArrayList<>()).addAll(l));
        if (current == c) current = committed;
    }

    /**
     * Stream Abort of a whole streamed transaction (not of a subtransaction): what it learnt is forgotten.
     *
     * @param xid the streamed transaction's xid
     */
    public void streamAbort(long xid) {
        Context c = streamed.remove(xid);
        if (current == c) current = committed;
    }

    /**
     * Feeds one record: Relation, Type, a DDL capture message, Begin, and the stream framing of
     * streamed transactions; anything else is ignored.
     *
     * @param record the next record of the stream, or of an assembled transaction
     * @return the change it told, or null
     */
    public SchemaChange accept(PgOutputRecord record) {
        if (record instanceof Relation r) {
            return relation(new RelationInfo(r.oid(), r.namespace(), r.name(), r.replicaIdentity(), r.columns()));
        } else if (record instanceof Type t) {
            type(t.oid(), t.namespace(), t.name());
        } else if (record instanceof Begin || record instanceof BeginPrepare) {
            begin();
        } else if (record instanceof Message m) {
            return message(m.transactional(), m.prefix(), m.content());
        } else if (record instanceof StreamStart s) {
            streamStart(s.xid());
        } else if (record instanceof StreamStop) {
            streamStop();
        } else if (record instanceof StreamCommit s) {
            streamCommit(s.xid());
        } else if (record instanceof StreamPrepare s) {
            streamCommit(s.xid());
        } else if (record instanceof StreamAbort a && a.xid() == a.subXid()) {
            streamAbort(a.xid());
        }
        return null;
    }

    /** What one transaction (or the committed stream) knows. */
    private static final class Context {
        final Map<Integer, RelationInfo> shapes = new HashMap<>();
        final Map<Integer, List<DdlCommand>> pending = new HashMap<>();
        /** Tables created (DDL capture) that no Relation has described yet. */
        final Set<Integer> created = new HashSet<>();
        /** Tables whose CREATE was reported at their first Relation: their statement's own message adds nothing. */
        final Set<Integer> createdAtRelation = new HashSet<>();
        /** A CREATE TABLE AS or SELECT INTO started and has not created its table yet. */
        DdlCommand creating;
        /** Tables dropped in this streamed transaction: not looked up in the committed shapes. */
        final Set<Integer> dropped = new HashSet<>();
        /** The query text of the last DDL message, for the next ones of the same query string. */
        String lastQuery;

        RelationInfo shape(int oid, Context committed) {
            RelationInfo r = shapes.get(oid);
            if (r != null || this == committed || dropped.contains(oid)) return r;
            return committed.shapes.get(oid);
        }

        void forget(int oid) {
            shapes.remove(oid);
            pending.remove(oid);
            created.remove(oid);
            createdAtRelation.remove(oid);
        }
    }
}
