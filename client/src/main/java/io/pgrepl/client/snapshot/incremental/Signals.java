package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.replication.QualifiedName;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.LogicalMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the stream tells the engine besides changes (event loop only): watermarks (logical
 * messages with prefix {@value ChunkReader#WATERMARK_PREFIX}, or the signal table's window rows)
 * and signals ({@code pgrepl} messages, or the signal table's other rows). A malformed signal is
 * logged and ignored; the stream goes on.
 */
final class Signals {
    private static final Logger log = LoggerFactory.getLogger(IncrementalSnapshots.class);
    private final Engine engine;
    /** The signal table as PostgreSQL reads its name, and as Debezium reads it (unquoted parts as written): rows of either are signals. */
    private final QualifiedName signalTable;
    private final QualifiedName signalTableAsWritten;

    Signals(Engine engine) {
        this.engine = engine;
        String t = engine.options.signalTable();
        signalTable = t == null ? null : QualifiedName.parse(t);
        signalTableAsWritten = t == null ? null : QualifiedName.parseAsWritten(t);
    }

    void maybeMessage(LogicalMessage m) {
        if (m.prefixEquals(ChunkReader.WATERMARK_PREFIX)) {
            if (m.transactional() && !engine.window.blockOpen) engine.mark(m.content().toString(StandardCharsets.UTF_8));
        } else if (m.prefixEquals(SnapshotSignals.MESSAGE_PREFIX) && engine.options.acceptMessageSignals()) {
            String where = "logical message at " + Lsn.format(m.messageLsn());
            if (engine.window.blockOpen) {
                log.warn("slot {}: snapshot signal ({}) inside a streamed transaction ignored: it may still abort", engine.slot, where);
                return;
            }
            try {
                apply(SnapshotSignals.parseMessage(m.content().toString(StandardCharsets.UTF_8)), where);
            } catch (MalformedSignalException e) {
                refused(where, e);
            }
        }
    }

    private void refused(String where, MalformedSignalException e) {
        log.error("slot {}: malformed snapshot signal ({}): {}; ignored, the stream goes on", engine.slot, where, e.getMessage());
        engine.handler.onSignalRefused(where, e.getMessage());
    }

    void maybeSignalRow(InsertMessage m) {
        if (signalTable == null) return;
        RelationInfo r = m.relation();
        if (!isSignalTable(r.namespace(), r.name())) return;
        TupleView t = m.newTuple();
        String id = text(t, r, "id");
        String type = text(t, r, "type");
        String data = text(t, r, "data");
        if (ChunkReader.OPEN_TYPE.equals(type) || ChunkReader.CLOSE_TYPE.equals(type)) {
            if (id != null && !engine.window.blockOpen) engine.mark(id);
            return;
        }
        if (engine.window.blockOpen) return;
        String where = "signal table row " + id;
        try {
            apply(SnapshotSignals.parse(id, type, data), where);
        } catch (MalformedSignalException e) {
            refused(where, e);
        }
    }

    private boolean isSignalTable(String schema, String name) {
        return (signalTable.name().equals(name) && signalTable.schema().equals(schema))
                || (signalTableAsWritten.name().equals(name) && signalTableAsWritten.schema().equals(schema));
    }

    private static String text(TupleView t, RelationInfo r, String column) {
        for (int i = 0; i < r.columnCount(); i++) {
            if (r.column(i).name().equals(column)) return t.hasValue(i) ? t.text(i) : null;
        }
        return null;
    }

    void apply(SnapshotSignal s, String where) {
        if (s.slot() != null && !s.slot().equals(engine.slot)) {
            log.debug("slot {}: snapshot signal ({}) for slot {} ignored", engine.slot, where, s.slot());
            return;
        }
        log.info("slot {}: snapshot signal {} ({}) for {}", engine.slot, s.type().signalName(), where,
                s.dataCollections().isEmpty() ? "all tables" : s.dataCollections());
        switch (s.type()) {
            case EXECUTE -> execute(s, where);
            case STOP -> engine.stop(t -> s.dataCollections().isEmpty() || s.matches(t));
            case PAUSE -> engine.pause(t -> true, true, true);
            case RESUME -> engine.pause(t -> true, true, false);
        }
    }

    private void execute(SnapshotSignal s, String where) {
        if (s.dataCollections().isEmpty()) {
            log.error("slot {}: execute-snapshot ({}) names no data-collections; ignored", engine.slot, where);
            return;
        }
        // A name the capture scope leaves out is refused before the tables are listed: what comes
        // back then cannot depend on whether such a table exists.
        java.util.List<String> entries = new java.util.ArrayList<>();
        java.util.Set<String> refusedNames = new java.util.HashSet<>();
        for (String c : s.dataCollections()) {
            String[] refused = excludedName(c);
            if (refused == null) entries.add(c);
            else if (refusedNames.add(refused[0])) engine.excluded(refused[0], refused[1]); // once per table, however spelled
        }
        if (entries.isEmpty()) return;
        // The tables a name may mean (any table, a name naming one outside the publications then
        // fails its planning saying so), and the published ones a regular expression may match.
        String pubs = String.join(", ", engine.publications().stream().map(Identifiers::quoteLiteral).toList());
        String sql = "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE c.relkind IN ('r', 'p', 'f') AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%';"
                + " SELECT DISTINCT schemaname, tablename FROM pg_catalog.pg_publication_tables WHERE pubname IN (" + pubs + ")";
        PgConnection.connect(engine.options.ordinary())
                .thenCompose(c -> c.simpleQuery(sql).whenComplete((v, e) -> c.close()))
                .whenComplete((q, e) -> engine.loop.execute(() -> {
                    if (e != null) {
                        // Names still go to planning, which says what is wrong with each; expressions cannot.
                        log.error("slot {}: execute-snapshot ({}): listing the tables failed: {}; names are planned as given",
                                engine.slot, where, e.getMessage());
                        for (String c : entries) engine.execute(c, s.conditionFor(c), s.surrogateKey());
                        return;
                    }
                    java.util.Set<QualifiedName> all = names(q.get(0));
                    java.util.Set<QualifiedName> published = names(q.get(1));
                    for (String c : entries) {
                        // An expression matches only what the scope captures, as if the rest were not published.
                        java.util.List<QualifiedName> hits = SnapshotSignal.resolve(c, all, published).stream()
                                .filter(t -> engine.excluded(t.toString()) == null).toList();
                        if (hits.isEmpty()) {
                            engine.unmatched(c, "execute-snapshot (" + where + ") names " + c + ", which matches no table"
                                    + " (names are read as PostgreSQL reads them, quoted parts as written; anything else as a"
                                    + " regular expression over the published tables' schema.table)");
                        }
                        for (QualifiedName t : hits) engine.execute(t.toString(), s.conditionFor(t), s.surrogateKey());
                    }
                }));
    }

    /**
     * The table a data collection names and why the scope leaves it out, or null: as PostgreSQL reads
     * the name, or with unquoted parts as written (Debezium's reading), whichever the scope refuses.
     */
    private String[] excludedName(String entry) {
        for (boolean fold : new boolean[] {true, false}) {
            QualifiedName q;
            try {
                q = fold ? QualifiedName.parse(entry) : QualifiedName.parseAsWritten(entry);
            } catch (IllegalArgumentException e) {
                continue;
            }
            String why = engine.options.capture().excludes(q.schema(), q.name());
            if (why != null) return new String[] {q.toString(), why};
        }
        return null;
    }

    private static java.util.Set<QualifiedName> names(io.pgrepl.client.QueryResult r) {
        java.util.Set<QualifiedName> out = new java.util.LinkedHashSet<>();
        for (io.pgrepl.client.Row row : r.rows()) out.add(new QualifiedName(row.get(0), row.get(1)));
        return out;
    }
}
