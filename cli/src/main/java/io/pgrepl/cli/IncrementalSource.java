package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.QualifiedName;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.SnapshotSignal;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.replication.XLogData;
import io.pgrepl.codec.pgoutput.CommitMessage;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * {@code pgrepl stream --snapshot=incremental}: the json stream's {@link TxSource}, wrapped by the
 * library's {@link IncrementalSnapshots}, which reads the tables in key-ordered chunks on ordinary
 * connections while the stream runs and calls back here between transactions, on the event loop.
 * Reads are rendered as the exported snapshot's {@code read} lines plus {@code "snapshot":"incremental"},
 * with the chunk's position as {@code lsn}, and handed to the printing thread before the next
 * transaction, so the output keeps stream order. They confirm nothing: the stream is acknowledged as
 * usual, so the slot holds no WAL beyond one chunk.
 *
 * <p>Watermarks are READ_ONLY (WAL positions around each chunk): no writes, so no watermark
 * transactions in the output, no privilege beyond SELECT, any server version.
 */
final class IncrementalSource extends TxSource implements SnapshotReadHandler {
    private static final int CHUNK = 64 * 1024;

    private final StreamRun run;
    private final StreamOptions settings;
    private final PrintStream err;
    private final JsonBytes json = new JsonBytes();
    private final ReadHeads heads;
    private final Set<String> startedTables = new HashSet<>();
    /** Tables whose snapshot ended failed, in order (event loop adds, the printing thread reads at the end). */
    private final Set<String> failed = new java.util.LinkedHashSet<>();
    private int lines;
    private IncrementalSnapshots engine;


    private final IncrementalCheckpoint checkpoint;

    IncrementalSource(StreamRun run, LongConsumer acknowledge, StreamOptions settings, PrintStream err) {
        this(run, new IncrementalCheckpoint(acknowledge, settings.snapshotState, settings.slot), settings, err);
    }

    private IncrementalSource(StreamRun run, IncrementalCheckpoint checkpoint, StreamOptions settings, PrintStream err) {
        super(run, checkpoint);
        this.checkpoint = checkpoint;
        this.run = run;
        this.heads = new ReadHeads(run::typeName);
        this.settings = settings;
        this.err = err;
    }

    /** The stream's handler: the engine around this source, with the snapshot of the tables requested. */
    IncrementalSnapshots engine(ConnectionConfig config) throws IOException {
        IncrementalOptions o = IncrementalOptions.of(config).withChunkSize(settings.chunkSize)
                .withWorkersPerTable(settings.snapshotWorkers).withWatermarks(WatermarkMode.READ_ONLY)
                .withAcceptMessageSignals(settings.acceptSignals).withSignalTable(settings.signalTable);
        StringBuilder why = new StringBuilder();
        String resume = IncrementalCheckpoint.load(settings.snapshotState, settings.slot, why);
        if (why.length() > 0) err.println("pgrepl: " + why);
        if (resume != null) o = o.withResumeState(resume); // the tables still to do, from their last stored chunk
        engine = IncrementalSnapshots.create(o, this);
        IncrementalSnapshots e = engine;
        run.snapshotBusy(() -> !e.isIdle());
        // Queued until the stream has started; with only --accept-signals there is nothing to read until a signal comes.
        if (resume != null) {
            if (settings.verbose) err.println("pgrepl: resuming the incremental snapshot from " + settings.snapshotState);
        } else if (!settings.snapshotTables.isEmpty()) {
            if (settings.surrogateKey == null) engine.execute(settings.snapshotTables.toArray(String[]::new));
            else engine.signal(new SnapshotSignal(SnapshotSignal.Type.EXECUTE, settings.snapshotTables, java.util.Map.of(),
                    "incremental", null, null, settings.surrogateKey), "--surrogate-key");
        }
        return engine;
    }

    /** The tables of the publications, as {@code schema.table}, for --snapshot-tables' default. */
    static List<String> publishedTables(PgConnection conn, List<String> publications) throws Exception {
        StringBuilder in = new StringBuilder();
        for (String p : publications) in.append(in.length() == 0 ? "" : ",").append(StreamCommand.literal(p));
        // A partition whose ancestor a publication lists through the root is named by that ancestor in
        // the stream (13+), so it is read with it, not by itself; the engine takes each table's tree.
        String namedByItself = conn.serverMajor() < 13 ? "" : " WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace, pg_catalog.pg_partition_ancestors(c.oid) anc"
                + " JOIN pg_catalog.pg_class ac ON ac.oid = anc.relid JOIN pg_catalog.pg_namespace an ON an.oid = ac.relnamespace"
                + " JOIN pub ON pub.schemaname = an.nspname AND pub.tablename = ac.relname"
                + " WHERE n.nspname = p.schemaname AND c.relname = p.tablename AND c.relispartition AND anc.relid <> c.oid)";
        List<String> tables = new ArrayList<>();
        for (Row r : StreamCommand.await(conn.query("WITH pub AS (SELECT DISTINCT schemaname, tablename FROM pg_catalog.pg_publication_tables"
                + " WHERE pubname IN (" + in + ")) SELECT p.schemaname, p.tablename FROM pub p" + namedByItself + " ORDER BY 1, 2")).rows()) {
            // As PostgreSQL reads it back: a name that needs quotes keeps them.
            tables.add(new QualifiedName(r.get(0), r.get(1)).toString());
        }
        if (tables.isEmpty()) throw new IllegalStateException("--snapshot=incremental: the publications have no tables");
        return tables;
    }

    /**
     * --accept-signals: where signals can come from on this server. Logical messages reach a pgoutput stream
     * from 14 on, and only with its messages option, so that is turned on (signal messages then print as
     * message lines: the output shows where each took effect). Before 14 only a signal table can carry them,
     * and its rows reach the stream only if the publications cover it.
     */
    static void checkSignalChannels(PgConnection conn, StreamOptions s) throws Exception {
        int major = conn.serverMajor();
        if (major >= 14) s.messages = true;
        else if (s.signalTable == null) {
            throw new IllegalStateException("--accept-signals: PostgreSQL " + major + " does not pass logical messages to a"
                    + " pgoutput stream (14+ does); give --signal-table schema.table, a signal table the publication covers");
        }
        if (s.signalTable == null) return;
        StringBuilder in = new StringBuilder();
        for (String p : s.publications) in.append(in.length() == 0 ? "" : ",").append(StreamCommand.literal(p));
        String rel = StreamCommand.literal(io.pgrepl.client.replication.Identifiers.quoteQualifiedName(s.signalTable));
        // to_regclass (9.4+) is null, not an error, for a table that does not exist. Its names are compared, not
        // each published row cast to regclass: 10 evaluates that cast on every table of the catalog (pg_toast's
        // too), which a role without superuser may not look up.
        boolean published = !StreamCommand.await(conn.query("SELECT 1 FROM pg_catalog.pg_publication_tables WHERE pubname IN ("
                + in + ") AND (schemaname, tablename) = (SELECT n.nspname, c.relname FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(" + rel + "))")).rows().isEmpty();
        if (!published) {
            throw new IllegalStateException("--signal-table " + s.signalTable + " is not in the publications " + s.publications
                    + " (or does not exist): its rows would never reach the stream (ALTER PUBLICATION ... ADD TABLE it)");
        }
    }

    // ---- event loop

    @Override
    public void onXLogData(XLogData header) {
        handOver(); // reads emitted since the last message go ahead of it
        super.onXLogData(header);
    }

    @Override
    public void onCommit(CommitMessage m) {
        if (engine != null) checkpoint.commit(m.endLsn(), engine.state()); // before the transaction is handed over
        super.onCommit(m);
    }

    @Override
    public void onSnapshotRead(TupleView row, long position) {
        ReadHeads.Head h = heads.of(row.relation());
        json.ascii("{\"type\":\"read\",\"snapshot\":\"incremental\",\"lsn\":").lsn(position).raw(h.head()).ascii(",\"new\":{");
        boolean first = true;
        for (int i = 0; i < row.columnCount(); i++) {
            ColumnKind k = row.kind(i);
            if (!k.hasValue() && k != ColumnKind.NULL) continue;
            if (!first) json.raw(',');
            first = false;
            json.raw(h.keys()[i]);
            if (k == ColumnKind.NULL) json.ascii("null");
            else ValueJson.write(json, row.column(i).typeOid(), k == ColumnKind.BINARY, row.buffer(), row.valueIndex(i), row.valueLength(i));
        }
        json.ascii("}}\n");
        lines++;
        if (json.length() >= CHUNK) handOver();
    }

    @Override
    public void onSnapshotProgress(TableProgress p) {
        if (p.status() != TableProgress.Status.PLANNING && startedTables.add(p.table())) {
            json.ascii("{\"type\":\"snapshot_start\",\"snapshot\":\"incremental\",\"table\":").str(p.table())
                    .ascii(",\"estimated_rows\":").num(p.estimatedRows()).ascii("}\n");
            lines++;
        }
        switch (p.status()) {
            case COMPLETED, STOPPED, FAILED, EXCLUDED -> {
                if (p.status() == TableProgress.Status.COMPLETED) {
                    synchronized (failed) {
                        failed.remove(p.table()); // requested again (a signal) and read whole this time
                    }
                }
                json.ascii("{\"type\":\"snapshot_end\",\"snapshot\":\"incremental\",\"table\":").str(p.table())
                        .ascii(",\"status\":").str(p.status().name().toLowerCase(java.util.Locale.ROOT))
                        .ascii(",\"chunks\":").num(p.chunks()).ascii(",\"rows\":").num(p.rows());
                if (p.error() != null) json.ascii(",\"error\":").str(p.error());
                json.ascii("}\n");
                lines++;
                // The library's log already says on stderr which table failed and why: the CLI adds only the way out.
                if (p.status() == TableProgress.Status.FAILED) {
                    synchronized (failed) {
                        failed.add(p.table());
                    }
                    if (p.error() != null && p.error().contains("no key to read it by")) {
                        err.println("pgrepl: hint: read it by a unique, not-null column: --snapshot=incremental --snapshot-tables "
                                + shellWord(p.table()) + " --surrogate-key COLUMN");
                    }
                }
            }
            default -> { }
        }
        handOver();
        if (p.status() == TableProgress.Status.COMPLETED || p.status() == TableProgress.Status.STOPPED
                || p.status() == TableProgress.Status.FAILED || p.status() == TableProgress.Status.EXCLUDED) {
            IncrementalCheckpoint.TableEnd end = checkpoint.tableEnded(engine.state()); // stored behind the lines just handed over
            if (end != null) run.handOver(end, 0);
        }
    }

    /**
     * Throws when a table's snapshot ended failed (and was not read whole by a later request): the
     * run did not deliver what was asked for, so the command must not exit 0.
     */
    void requireNoFailures() {
        List<String> names;
        synchronized (failed) {
            names = new ArrayList<>(failed);
        }
        if (names.isEmpty()) return;
        throw new IllegalStateException((names.size() == 1 ? "the incremental snapshot of " + names.get(0) + " failed"
                : "the incremental snapshots of " + names.size() + " tables failed: " + String.join(", ", names))
                + " (why: on stderr above, and in the snapshot_end line)");
    }

    private void handOver() {
        if (lines == 0) return;
        byte[] bytes = json.take();
        run.handOver(new SnapshotSource.Lines(bytes, lines, false), bytes.length);
        lines = 0;
        run.dataArrived(); // reads count as data for --idle-exit
    }

    @Override
    void close() {
        if (engine != null) engine.close();
        super.close();
    }

    /** {@code word} as one shell word: in single quotes when it holds anything but letters, digits, {@code _ . $ -}. */
    static String shellWord(String word) {
        return word.matches("[A-Za-z0-9_.$-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
    }
}
