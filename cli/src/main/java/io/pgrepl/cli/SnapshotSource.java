package io.pgrepl.cli;

import io.pgrepl.client.snapshot.SnapshotHandler;
import io.pgrepl.client.snapshot.SnapshotResult;
import io.pgrepl.client.snapshot.SnapshotTable;
import io.pgrepl.client.snapshot.SnapshotWarning;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.TupleView;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code pgrepl stream --snapshot} on the snapshot workers' event loops: a {@code snapshot_start}
 * line, one {@code read} line per row, a {@code snapshot_end} line. A row's view is valid only
 * during its call, so lines are rendered here, in the value form of the chosen format's inserts
 * ({@link ValueJson} for json, {@link ChangeJson} for protocol), and handed to the printing thread
 * in chunks. The library calls {@link #onEnd} before it starts the stream, so every snapshot line
 * is queued ahead of the first streamed change.
 *
 * <p>While the printing thread is behind (the stream's own limits), the calling worker waits: the
 * library serializes the calls, so every worker stops reading its COPY. A {@link #abort} (a stop
 * signal, an output failure) makes the next call throw, which fails the snapshot and drops its slot.
 */
final class SnapshotSource implements SnapshotHandler {
    private static final int CHUNK = 64 * 1024;

    /** Rendered snapshot lines; {@code end}: ends with snapshot_end. They confirm nothing. */
    record Lines(byte[] utf8, int count, boolean end) {}

    private final StreamRun run;
    private final Verbose verbose;
    private final boolean protocol;
    /** --format json: the read lines. */
    private final JsonBytes json = new JsonBytes();
    /** Per relation (the library keeps one per table): its rendered {@code "schema"...key_columns} part and column keys. */
    private final ReadHeads heads;

    /** --format protocol: the read lines. */
    private final StringBuilder text = new StringBuilder(CHUNK + 1024);
    private final ChangeJson changeJson = new ChangeJson(text);
    private int lines;
    private volatile boolean aborted;
    private boolean ended;

    SnapshotSource(StreamRun run, Verbose verbose, boolean protocol) {
        this.run = run;
        this.heads = new ReadHeads(run::typeName);
        this.verbose = verbose;
        this.protocol = protocol;
    }

    @Override
    public void onStart(long consistentPoint, List<SnapshotTable> tables) {
        checkAborted();
        verbose.snapshotFiltered = tables.stream().anyMatch(t -> t.rowFilter() != null);
        StringBuilder b = new StringBuilder(64).append("{\"type\":\"snapshot_start\",\"lsn\":\"").append(Lsn.format(consistentPoint))
                .append("\",\"tables\":[");
        for (int i = 0; i < tables.size(); i++) Json.appendQuoted(b.append(i > 0 ? "," : ""), tables.get(i).qualifiedName());
        append(b.append("]}\n"));
        handOver(false); // at once: the copy of a large table may take a while
    }

    @Override
    public void onRead(TupleView row, long consistentPoint) {
        checkAborted();
        if (protocol) {
            changeJson.read(row, consistentPoint);
        } else {
            ReadHeads.Head h = heads.of(row.relation());
            json.ascii("{\"type\":\"read\",\"lsn\":").lsn(consistentPoint).raw(h.head()).ascii(",\"new\":{");
            boolean first = true;
            for (int i = 0; i < row.columnCount(); i++) {
                ColumnKind k = row.kind(i);
                if (!k.hasValue() && k != ColumnKind.NULL) continue; // COPY sends whole rows: never happens
                if (!first) json.raw(',');
                first = false;
                json.raw(h.keys()[i]);
                if (k == ColumnKind.NULL) json.ascii("null");
                else ValueJson.write(json, row.column(i).typeOid(), k == ColumnKind.BINARY, row.buffer(), row.valueIndex(i), row.valueLength(i));
            }
            json.ascii("}}\n");
        }
        lines++;
        if ((protocol ? text.length() : json.length()) >= CHUNK) handOver(false);
    }


    @Override
    public void onWarning(SnapshotWarning warning) {
        verbose.warning("pgrepl: warning: " + warning.message());
    }

    @Override
    public void onEnd(SnapshotResult result) {
        synchronized (this) {
            checkAborted();
            ended = true; // from here on the snapshot counts as complete: an abort comes too late
        }
        append(new StringBuilder(64).append("{\"type\":\"snapshot_end\",\"lsn\":\"").append(Lsn.format(result.consistentPoint()))
                .append("\",\"rows\":").append(result.rows()).append("}\n"));
        handOver(true);
    }

    /**
     * Makes the next call fail the snapshot, unless it has ended already; returns whether the
     * snapshot is (or will be) failed.
     */
    synchronized boolean abort() {
        if (!ended) aborted = true;
        return aborted;
    }

    /** Whether {@link #onEnd} ran: every snapshot line is queued. */
    synchronized boolean ended() {
        return ended;
    }

    private void checkAborted() {
        if (aborted) throw new IllegalStateException("stopped before the snapshot was complete");
    }

    private void append(CharSequence line) {
        if (protocol) text.append(line);
        else json.raw(line.toString().getBytes(StandardCharsets.UTF_8));
    }

    private void handOver(boolean end) {
        byte[] bytes;
        if (protocol) {
            bytes = text.toString().getBytes(StandardCharsets.UTF_8);
            text.setLength(0);
        } else {
            bytes = json.take();
        }
        run.handOver(new Lines(bytes, lines, end), bytes.length);
        lines = 0;
        if (!end) run.waitForRoom(() -> aborted);
    }
}
