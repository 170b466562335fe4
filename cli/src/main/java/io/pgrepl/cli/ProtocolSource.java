package io.pgrepl.cli;

import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.*;
import io.pgrepl.codec.replication.XLogData;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * {@code --format protocol} on the event loop: every pgoutput message as one JSON line
 * ({@link ChangeJson}, the {@code pgrepl decode} schema), handed to the printing thread at
 * transaction ends and in 64 KiB chunks.
 *
 * <p>After a reconnect the server sends every unconfirmed transaction again from its start, so
 * lines already printed for a transaction that was still open on the dead connection are void: an
 * {@code {"type":"abandoned","xids":[...]}} line says so, and the transactions follow again whole.
 */
final class ProtocolSource implements LogicalStreamHandler {
    private static final int CHUNK_CHARS = 64 * 1024;

    /** Text handed from the event loop to the printing thread; {@code ackLsn} 0 confirms nothing. */
    record Chunk(String text, long ackLsn) {}

    private final StreamRun run;
    private final StringBuilder pending = new StringBuilder(CHUNK_CHARS + 1024);
    private final ChangeJson json = new ChangeJson(pending);
    /** Transactions begun on this connection and not ended (B..C, b..P, streamed ones). */
    private final Set<Long> open = new LinkedHashSet<>();
    /**
     * The xid of the plain transaction between Begin and Commit (-1: none). Commit carries no xid,
     * and streamed transactions stay open around plain ones, so Commit ends this one only.
     */
    private long plainXid = -1;
    private long lastLsn;
    private boolean started;

    /** --schema-changes: a schema line before the message that told it. */
    private boolean schemaLines;

    ProtocolSource(StreamRun run) {
        this.run = run;
    }

    ProtocolSource schemaChanges(boolean on) {
        this.schemaLines = on;
        return this;
    }

    @Override
    public void onSchemaChange(io.pgrepl.client.schema.SchemaChange change) {
        if (schemaLines) pending.append(SchemaJson.line(change, -1, Lsn.format(lastLsn), TypeNames::name));
    }

    @Override
    public void onStarted(LogicalReplicationStream stream) {
        pending.setLength(0); // never printed: the server sends it again
        if (started && !open.isEmpty()) {
            StringBuilder b = new StringBuilder("{\"type\":\"abandoned\",\"lsn\":\"").append(Lsn.format(lastLsn))
                    .append("\",\"xids\":[");
            int i = 0;
            for (long xid : open) b.append(i++ > 0 ? "," : "").append(xid);
            b.append("],\"reason\":\"connection lost; these transactions are sent again from their start\"}\n");
            run.handOver(new Chunk(b.toString(), 0), b.length());
        }
        open.clear();
        plainXid = -1;
        started = true;
        run.started(stream);
    }

    @Override
    public void onXLogData(XLogData header) {
        lastLsn = header.walStart();
        json.at(lastLsn);
        run.dataArrived();
    }

    /** After each message: hand the text over at transaction ends and when large. */
    private void after(long ackLsn) {
        if (ackLsn != 0 || pending.length() >= CHUNK_CHARS) {
            run.handOver(new Chunk(pending.toString(), ackLsn), pending.length());
            pending.setLength(0);
        }
    }

    @Override
    public void onBegin(BeginMessage m) {
        plainXid = m.xid();
        open.add(plainXid);
        json.onBegin(m);
        after(0);
    }

    @Override
    public void onCommit(CommitMessage m) {
        open.remove(plainXid);
        plainXid = -1;
        json.onCommit(m);
        after(m.endLsn());
    }
    @Override public void onOrigin(OriginMessage m) { json.onOrigin(m); after(0); }
    @Override public void onRelation(RelationMessage m) { json.onRelation(m); after(0); }
    @Override public void onType(TypeMessage m) { json.onType(m); after(0); }
    @Override public void onInsert(InsertMessage m) { json.onInsert(m); after(0); }
    @Override public void onUpdate(UpdateMessage m) { json.onUpdate(m); after(0); }
    @Override public void onDelete(DeleteMessage m) { json.onDelete(m); after(0); }
    @Override public void onTruncate(TruncateMessage m) { json.onTruncate(m); after(0); }

    @Override
    public void onMessage(LogicalMessage m) {
        json.onMessage(m);
        after(m.transactional() ? 0 : m.messageLsn());
    }

    @Override public void onStreamStart(StreamStartMessage m) { open.add(m.xid()); json.onStreamStart(m); after(0); }
    @Override public void onStreamStop(StreamStopMessage m) { json.onStreamStop(m); after(0); }

    @Override
    public void onStreamCommit(StreamCommitMessage m) {
        open.remove(m.xid());
        json.onStreamCommit(m);
        after(m.endLsn());
    }

    @Override
    public void onStreamAbort(StreamAbortMessage m) {
        if (m.subXid() == m.xid()) open.remove(m.xid());
        json.onStreamAbort(m);
        after(0);
    }

    @Override public void onBeginPrepare(BeginPrepareMessage m) { open.add(m.xid()); json.onBeginPrepare(m); after(0); }
    @Override public void onPrepare(PrepareMessage m) { open.remove(m.xid()); json.onPrepare(m); after(m.endLsn()); }

    @Override
    public void onStreamPrepare(PrepareMessage m) {
        open.remove(m.xid());
        json.onStreamPrepare(m);
        after(m.endLsn());
    }

    @Override public void onCommitPrepared(CommitPreparedMessage m) { json.onCommitPrepared(m); after(m.endLsn()); }

    @Override
    public void onRollbackPrepared(RollbackPreparedMessage m) {
        json.onRollbackPrepared(m);
        after(m.rollbackEndLsn());
    }
}
