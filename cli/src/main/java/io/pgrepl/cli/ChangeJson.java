package io.pgrepl.cli;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.pgoutput.*;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders pgoutput messages as JSON, one object per line, fields named in snake_case after the
 * PostgreSQL "Logical Replication Message Formats" page. Used by {@code pgrepl decode} and
 * {@code pgrepl stream}: set the message's LSN with {@link #at(long)}, then hand this handler to
 * {@link PgOutputDecoder#decode}, or call {@link #write(PgOutputDecoder, long, ByteBuf)}.
 *
 * <p>Tuple values: text as the exact string sent, SQL NULL as null, binary as
 * {@code {"binary":"<hex>"}}; unchanged TOAST columns are left out of the tuple and named in
 * {@code unchanged_toast}; key-only tuples carry only the key columns.
 */
public final class ChangeJson implements PgOutputHandler {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final Appendable out;
    private final StringBuilder sb = new StringBuilder(256);
    private long lsn;

    /** Writes each message as one line ({@code \n}-terminated) to {@code out}. */
    public ChangeJson(Appendable out) {
        this.out = out;
    }

    /** Sets the LSN printed in the {@code lsn} field of the following messages; returns this. */
    public ChangeJson at(long lsn) {
        this.lsn = lsn;
        return this;
    }

    /** Decodes {@code message} (readable bytes, one pgoutput message) and writes its line. */
    public void write(PgOutputDecoder decoder, long lsn, ByteBuf message) {
        at(lsn);
        decoder.decode(message, this);
    }

    // ---- transaction framing

    @Override
    public void onBegin(BeginMessage m) {
        start("begin");
        lsnField("final_lsn", m.finalLsn());
        timeField("commit_time", m.commitTimeMicros());
        num("xid", m.xid());
        end();
    }

    @Override
    public void onCommit(CommitMessage m) {
        start("commit");
        num("flags", m.flags());
        lsnField("commit_lsn", m.commitLsn());
        lsnField("end_lsn", m.endLsn());
        timeField("commit_time", m.commitTimeMicros());
        end();
    }

    @Override
    public void onOrigin(OriginMessage m) {
        start("origin");
        lsnField("origin_lsn", m.originLsn());
        str("name", m.name());
        end();
    }

    // ---- schema

    @Override
    public void onRelation(RelationMessage m) {
        start("relation");
        xid(m);
        RelationInfo r = m.relation();
        num("relation_id", Integer.toUnsignedLong(r.oid()));
        str("namespace", r.namespace());
        str("name", r.name());
        str("replica_identity", String.valueOf(r.replicaIdentity()));
        key("columns").append('[');
        for (int i = 0; i < r.columnCount(); i++) {
            ColumnInfo c = r.column(i);
            if (i > 0) sb.append(',');
            sb.append('{');
            quote("name").append(':');
            quote(c.name()).append(",\"type_oid\":").append(Integer.toUnsignedLong(c.typeOid()))
                    .append(",\"type_modifier\":").append(c.typmod())
                    .append(",\"key\":").append(c.isKey()).append('}');
        }
        sb.append(']');
        end();
    }

    @Override
    public void onType(TypeMessage m) {
        start("type");
        xid(m);
        TypeInfo t = m.typeInfo();
        num("type_oid", Integer.toUnsignedLong(t.oid()));
        str("namespace", t.namespace());
        str("name", t.name());
        end();
    }

    // ---- changes

    @Override
    public void onInsert(InsertMessage m) {
        dml("insert", m, m.relation());
        List<String> toast = new ArrayList<>(0);
        tuple("new", m.newTuple(), toast);
        toast(toast);
        end();
    }

    /**
     * A row of an initial snapshot ({@code pgrepl stream --snapshot}): shaped like an insert, with
     * the slot's consistent point as its {@code lsn} and no {@code xid}.
     */
    public void read(TupleView row, long consistentPoint) {
        at(consistentPoint);
        RelationInfo r = row.relation();
        start("read");
        num("relation_id", Integer.toUnsignedLong(r.oid()));
        str("schema", r.schema());
        str("table", r.name());
        List<String> toast = new ArrayList<>(0); // COPY sends whole rows: stays empty
        tuple("new", row, toast);
        toast(toast);
        end();
    }

    @Override
    public void onUpdate(UpdateMessage m) {
        dml("update", m, m.relation());
        List<String> toast = new ArrayList<>(0);
        if (m.hasOldTuple()) tuple(m.oldTupleKind() == 'K' ? "key" : "old", m.oldTuple(), toast);
        tuple("new", m.newTuple(), toast);
        toast(toast);
        end();
    }

    @Override
    public void onDelete(DeleteMessage m) {
        dml("delete", m, m.relation());
        List<String> toast = new ArrayList<>(0);
        tuple(m.oldTupleKind() == 'K' ? "key" : "old", m.oldTuple(), toast);
        toast(toast);
        end();
    }

    @Override
    public void onTruncate(TruncateMessage m) {
        start("truncate");
        xid(m);
        key("relations").append('[');
        for (int i = 0; i < m.relationCount(); i++) {
            if (i > 0) sb.append(',');
            RelationInfo r = m.relation(i);
            // An OID without a Relation cannot be named; the id still says which table it was.
            quote(r == null ? "oid:" + Integer.toUnsignedString(m.relationOid(i)) : r.schema() + "." + r.name());
        }
        sb.append(']');
        key("relation_ids").append('[');
        for (int i = 0; i < m.relationCount(); i++) {
            if (i > 0) sb.append(',');
            sb.append(Integer.toUnsignedLong(m.relationOid(i)));
        }
        sb.append(']');
        bool("cascade", m.cascade());
        bool("restart_identity", m.restartIdentity());
        end();
    }

    @Override
    public void onMessage(LogicalMessage m) {
        start("message");
        xid(m);
        bool("transactional", m.transactional());
        num("flags", m.flags());
        lsnField("message_lsn", m.messageLsn());
        str("prefix", m.prefix());
        key("content");
        hex(m.buffer(), m.contentIndex(), m.contentLength());
        end();
    }

    // ---- streaming (proto 2+)

    @Override
    public void onStreamStart(StreamStartMessage m) {
        start("stream_start");
        num("xid", m.xid());
        bool("first_segment", m.isFirstSegment());
        end();
    }

    @Override
    public void onStreamStop(StreamStopMessage m) {
        start("stream_stop");
        end();
    }

    @Override
    public void onStreamCommit(StreamCommitMessage m) {
        start("stream_commit");
        num("xid", m.xid());
        num("flags", m.flags());
        lsnField("commit_lsn", m.commitLsn());
        lsnField("end_lsn", m.endLsn());
        timeField("commit_time", m.commitTimeMicros());
        end();
    }

    @Override
    public void onStreamAbort(StreamAbortMessage m) {
        start("stream_abort");
        num("xid", m.xid());
        num("subxid", m.subXid());
        if (m.hasAbortInfo()) {
            lsnField("abort_lsn", m.abortLsn());
            timeField("abort_time", m.abortTimeMicros());
        }
        end();
    }

    // ---- two-phase (proto 3+)

    @Override
    public void onBeginPrepare(BeginPrepareMessage m) {
        start("begin_prepare");
        lsnField("prepare_lsn", m.prepareLsn());
        lsnField("end_lsn", m.endLsn());
        timeField("prepare_time", m.prepareTimeMicros());
        num("xid", m.xid());
        str("gid", m.gid());
        end();
    }

    @Override
    public void onPrepare(PrepareMessage m) {
        prepare("prepare", m);
    }

    @Override
    public void onStreamPrepare(PrepareMessage m) {
        prepare("stream_prepare", m);
    }

    private void prepare(String type, PrepareMessage m) {
        start(type);
        num("flags", m.flags());
        lsnField("prepare_lsn", m.prepareLsn());
        lsnField("end_lsn", m.endLsn());
        timeField("prepare_time", m.prepareTimeMicros());
        num("xid", m.xid());
        str("gid", m.gid());
        end();
    }

    @Override
    public void onCommitPrepared(CommitPreparedMessage m) {
        start("commit_prepared");
        num("flags", m.flags());
        lsnField("commit_lsn", m.commitLsn());
        lsnField("end_lsn", m.endLsn());
        timeField("commit_time", m.commitTimeMicros());
        num("xid", m.xid());
        str("gid", m.gid());
        end();
    }

    @Override
    public void onRollbackPrepared(RollbackPreparedMessage m) {
        start("rollback_prepared");
        num("flags", m.flags());
        lsnField("prepare_end_lsn", m.prepareEndLsn());
        lsnField("rollback_end_lsn", m.rollbackEndLsn());
        timeField("prepare_time", m.prepareTimeMicros());
        timeField("rollback_time", m.rollbackTimeMicros());
        num("xid", m.xid());
        str("gid", m.gid());
        end();
    }

    // ---- pieces

    private void dml(String type, StreamableMessage m, RelationInfo r) {
        start(type);
        xid(m);
        num("relation_id", Integer.toUnsignedLong(r.oid()));
        str("schema", r.schema());
        str("table", r.name());
    }

    private void tuple(String name, TupleView t, List<String> unchangedToast) {
        key(name).append('{');
        boolean first = true;
        for (int i = 0; i < t.columnCount(); i++) {
            ColumnKind k = t.kind(i);
            if (k == ColumnKind.ABSENT) continue;
            String col = t.column(i).name();
            if (k == ColumnKind.UNCHANGED_TOAST) {
                if (!unchangedToast.contains(col)) unchangedToast.add(col);
                continue;
            }
            if (!first) sb.append(',');
            first = false;
            quote(col).append(':');
            switch (k) {
                case NULL -> sb.append("null");
                case TEXT -> quote(t.text(i));
                case BINARY -> {
                    sb.append("{\"binary\":");
                    hex(t.buffer(), t.valueIndex(i), t.valueLength(i));
                    sb.append('}');
                }
                default -> throw new IllegalStateException(k.toString());
            }
        }
        sb.append('}');
    }

    private void toast(List<String> names) {
        if (names.isEmpty()) return;
        key("unchanged_toast").append('[');
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) sb.append(',');
            quote(names.get(i));
        }
        sb.append(']');
    }

    private void xid(StreamableMessage m) {
        if (m.hasXid()) num("xid", m.xid());
    }

    private void start(String type) {
        sb.setLength(0);
        sb.append("{\"type\":\"").append(type).append("\",\"lsn\":\"").append(Lsn.format(lsn)).append('"');
    }

    private void end() {
        sb.append("}\n");
        try {
            out.append(sb);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private StringBuilder key(String name) {
        sb.append(',');
        return quote(name).append(':');
    }

    private void num(String name, long value) {
        key(name).append(value);
    }

    private void bool(String name, boolean value) {
        key(name).append(value);
    }

    private void str(String name, String value) {
        key(name);
        quote(value);
    }

    private void lsnField(String name, long value) {
        str(name, Lsn.format(value));
    }

    private void timeField(String name, long pgMicros) {
        str(name, PgTime.toInstant(pgMicros).toString());
    }

    private void hex(ByteBuf buf, int index, int length) {
        sb.append('"');
        for (int i = 0; i < length; i++) {
            int b = buf.getUnsignedByte(index + i);
            sb.append(HEX[b >> 4]).append(HEX[b & 0xf]);
        }
        sb.append('"');
    }

    private StringBuilder quote(String s) {
        return Json.appendQuoted(sb, s);
    }
}
