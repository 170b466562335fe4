package io.pgrepl.codec.pgoutput.record;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.pgrepl.codec.pgoutput.*;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Copies flyweight views into {@link PgOutputRecord}s. */
public final class PgOutputRecords {
    private PgOutputRecords() {}

    /**
     * A handler that copies every message into a record and passes it to {@code sink}.
     *
     * @param sink receives each record, in decode order
     * @return the handler, to pass to {@link PgOutputDecoder#decode}
     */
    public static PgOutputHandler collector(Consumer<? super PgOutputRecord> sink) {
        return new Collector(sink);
    }

    /**
     * Decodes one message with {@code decoder} (updating its state) and returns its record.
     *
     * @param decoder the decoder, whose relation cache and stream state the message may change
     * @param message one pgoutput message, the XLogData's WAL data
     * @return the record
     */
    public static PgOutputRecord decode(PgOutputDecoder decoder, ByteBuf message) {
        PgOutputRecord[] out = new PgOutputRecord[1];
        decoder.decode(message, collector(r -> out[0] = r));
        return out[0];
    }

    /**
     * Copies a BeginMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Begin of(BeginMessage m) {
        return new Begin(m.finalLsn(), m.commitTimeMicros(), m.xid());
    }

    /**
     * Copies a CommitMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Commit of(CommitMessage m) {
        return new Commit(m.flags(), m.commitLsn(), m.endLsn(), m.commitTimeMicros());
    }

    /**
     * Copies a OriginMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Origin of(OriginMessage m) {
        return new Origin(m.originLsn(), m.name());
    }

    /**
     * Copies a RelationMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Relation of(RelationMessage m) {
        RelationInfo r = m.relation();
        return new Relation(m.xid(), r.oid(), r.namespace(), r.name(), r.replicaIdentity(), r.columns());
    }

    /**
     * Copies a TypeMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Type of(TypeMessage m) {
        TypeInfo t = m.typeInfo();
        return new Type(m.xid(), t.oid(), t.namespace(), t.name());
    }

    /**
     * Copies a InsertMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Insert of(InsertMessage m) {
        return new Insert(m.xid(), m.relationOid(), tuple(m.newTuple()));
    }

    /**
     * Copies a UpdateMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Update of(UpdateMessage m) {
        return new Update(m.xid(), m.relationOid(), m.oldTupleKind(), m.hasOldTuple() ? tuple(m.oldTuple()) : null,
                tuple(m.newTuple()));
    }

    /**
     * Copies a DeleteMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Delete of(DeleteMessage m) {
        return new Delete(m.xid(), m.relationOid(), m.oldTupleKind(), tuple(m.oldTuple()));
    }

    /**
     * Copies a TruncateMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Truncate of(TruncateMessage m) {
        List<Integer> oids = new ArrayList<>(m.relationCount());
        for (int i = 0; i < m.relationCount(); i++) oids.add(m.relationOid(i));
        return new Truncate(m.xid(), m.options(), List.copyOf(oids));
    }

    /**
     * Copies a LogicalMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static Message of(LogicalMessage m) {
        return new Message(m.xid(), m.flags(), m.messageLsn(), m.prefix(),
                ByteBufUtil.getBytes(m.buffer(), m.contentIndex(), m.contentLength()));
    }

    /**
     * Copies a StreamStartMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static StreamStart of(StreamStartMessage m) {
        return new StreamStart(m.xid(), m.firstSegmentByte());
    }

    /**
     * Copies a StreamCommitMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static StreamCommit of(StreamCommitMessage m) {
        return new StreamCommit(m.xid(), m.flags(), m.commitLsn(), m.endLsn(), m.commitTimeMicros());
    }

    /**
     * Copies a StreamAbortMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static StreamAbort of(StreamAbortMessage m) {
        return new StreamAbort(m.xid(), m.subXid(), m.hasAbortInfo(), m.abortLsn(), m.abortTimeMicros());
    }

    /**
     * Copies a BeginPrepareMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static BeginPrepare of(BeginPrepareMessage m) {
        return new BeginPrepare(m.prepareLsn(), m.endLsn(), m.prepareTimeMicros(), m.xid(), m.gid());
    }

    /**
     * Copies a PrepareMessage view: Prepare for 'P', StreamPrepare for 'p'.
     *
     * @param m the message view, valid only during its callback
     * @return a {@link Prepare} or {@link StreamPrepare} that owns its data
     */
    public static PgOutputRecord of(PrepareMessage m) {
        return m.streamed()
                ? new StreamPrepare(m.flags(), m.prepareLsn(), m.endLsn(), m.prepareTimeMicros(), m.xid(), m.gid())
                : new Prepare(m.flags(), m.prepareLsn(), m.endLsn(), m.prepareTimeMicros(), m.xid(), m.gid());
    }

    /**
     * Copies a CommitPreparedMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static CommitPrepared of(CommitPreparedMessage m) {
        return new CommitPrepared(m.flags(), m.commitLsn(), m.endLsn(), m.commitTimeMicros(), m.xid(), m.gid());
    }

    /**
     * Copies a RollbackPreparedMessage view into a record.
     *
     * @param m the message view, valid only during its callback
     * @return a record that owns its data
     */
    public static RollbackPrepared of(RollbackPreparedMessage m) {
        return new RollbackPrepared(m.flags(), m.prepareEndLsn(), m.rollbackEndLsn(), m.prepareTimeMicros(),
                m.rollbackTimeMicros(), m.xid(), m.gid());
    }

    /**
     * Copies a tuple view: each column's kind and value bytes, in one array per tuple (see {@link Tuple}).
     *
     * @param t the tuple view, valid only during its callback
     * @return a record that owns copies of the values
     */
    public static Tuple tuple(TupleView t) {
        return Tuple.copyOf(t);
    }

    private record Collector(Consumer<? super PgOutputRecord> sink) implements PgOutputHandler {
        @Override
        public void onBegin(BeginMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onCommit(CommitMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onOrigin(OriginMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onRelation(RelationMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onType(TypeMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onInsert(InsertMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onUpdate(UpdateMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onDelete(DeleteMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onTruncate(TruncateMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onMessage(LogicalMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onStreamStart(StreamStartMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onStreamStop(StreamStopMessage m) {
            sink.accept(new StreamStop());
        }

        @Override
        public void onStreamCommit(StreamCommitMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onStreamAbort(StreamAbortMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onBeginPrepare(BeginPrepareMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onPrepare(PrepareMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onCommitPrepared(CommitPreparedMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onRollbackPrepared(RollbackPreparedMessage m) {
            sink.accept(of(m));
        }

        @Override
        public void onStreamPrepare(PrepareMessage m) {
            sink.accept(of(m));
        }
    }
}
