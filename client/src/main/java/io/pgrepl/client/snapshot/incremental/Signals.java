package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.LogicalMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
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
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_$.\"]+");
    private final Engine engine;
    private final String signalSchema;
    private final String signalName;

    Signals(Engine engine) {
        this.engine = engine;
        String t = engine.options.signalTable();
        if (t == null) {
            signalSchema = null;
            signalName = null;
        } else {
            int dot = t.indexOf('.');
            signalSchema = dot < 0 ? "public" : unquote(t.substring(0, dot));
            signalName = unquote(dot < 0 ? t : t.substring(dot + 1));
        }
    }

    private static String unquote(String s) {
        return s.length() > 1 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1).replace("\"\"", "\"") : s;
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
        if (signalName == null) return;
        RelationInfo r = m.relation();
        if (!signalName.equals(r.name()) || !signalSchema.equals(r.namespace())) return;
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
        if (s.dataCollections().stream().allMatch(c -> PLAIN.matcher(c).matches())) {
            for (String c : s.dataCollections()) engine.execute(c, s.conditionFor(c), s.surrogateKey());
            return;
        }
        // Regular expressions: matched against the tables the publications cover.
        String pubs = String.join(", ", engine.publications().stream().map(Identifiers::quoteLiteral).toList());
        PgConnection.connect(engine.options.ordinary()).thenCompose(c -> c.query(
                "SELECT DISTINCT schemaname || '.' || tablename FROM pg_catalog.pg_publication_tables WHERE pubname IN (" + pubs
                        + ") ORDER BY 1").whenComplete((v, e) -> c.close()))
                .whenComplete((q, e) -> engine.loop.execute(() -> {
                    if (e != null) {
                        log.error("slot {}: execute-snapshot ({}): listing the publications' tables failed: {}", engine.slot, where, e.getMessage());
                        return;
                    }
                    q.rows().stream().map(r -> r.get(0)).filter(s::matches).forEach(t -> engine.execute(t, s.conditionFor(t), s.surrogateKey()));
                }));
    }
}
