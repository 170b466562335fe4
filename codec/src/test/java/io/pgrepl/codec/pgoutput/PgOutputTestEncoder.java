package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.record.*;
import java.nio.charset.StandardCharsets;

/**
 * Writes pgoutput messages the way the server's proto.c does (logicalrep_write_*), field by
 * field, from records. Written from the protocol documentation, independently of the decoder, so
 * decoder tests check the spec rather than the decoder against itself. An xid of 0 on a
 * streamable record means "not in a stream block": no xid prefix.
 */
public final class PgOutputTestEncoder {
    private PgOutputTestEncoder() {}

    public static byte[] bytes(PgOutputRecord r) {
        ByteBuf b = encode(r);
        return ByteBufUtil.getBytes(b);
    }

    public static ByteBuf encode(PgOutputRecord r) {
        ByteBuf b = Unpooled.buffer();
        b.writeByte(r.type());
        if (r instanceof Begin m) {
            b.writeLong(m.finalLsn());
            b.writeLong(m.commitTimeMicros());
            b.writeInt((int) m.xid());
        } else if (r instanceof Commit m) {
            b.writeByte(m.flags());
            b.writeLong(m.commitLsn());
            b.writeLong(m.endLsn());
            b.writeLong(m.commitTimeMicros());
        } else if (r instanceof Origin m) {
            b.writeLong(m.originLsn());
            string(b, m.name());
        } else if (r instanceof Relation m) {
            xid(b, m.xid());
            b.writeInt(m.oid());
            string(b, m.namespace());
            string(b, m.name());
            b.writeByte(m.replicaIdentity());
            b.writeShort(m.columns().size());
            for (ColumnInfo c : m.columns()) {
                b.writeByte(c.flags());
                string(b, c.name());
                b.writeInt(c.typeOid());
                b.writeInt(c.typmod());
            }
        } else if (r instanceof Type m) {
            xid(b, m.xid());
            b.writeInt(m.oid());
            string(b, m.namespace());
            string(b, m.name());
        } else if (r instanceof Insert m) {
            xid(b, m.xid());
            b.writeInt(m.relationOid());
            b.writeByte('N');
            tuple(b, m.newTuple());
        } else if (r instanceof Update m) {
            xid(b, m.xid());
            b.writeInt(m.relationOid());
            if (m.oldTupleKind() != 0) {
                b.writeByte(m.oldTupleKind());
                tuple(b, m.oldTuple());
            }
            b.writeByte('N');
            tuple(b, m.newTuple());
        } else if (r instanceof Delete m) {
            xid(b, m.xid());
            b.writeInt(m.relationOid());
            b.writeByte(m.oldTupleKind());
            tuple(b, m.oldTuple());
        } else if (r instanceof Truncate m) {
            xid(b, m.xid());
            b.writeInt(m.relationOids().size());
            b.writeByte(m.options());
            for (int oid : m.relationOids()) b.writeInt(oid);
        } else if (r instanceof Message m) {
            xid(b, m.xid());
            b.writeByte(m.flags());
            b.writeLong(m.messageLsn());
            string(b, m.prefix());
            b.writeInt(m.content().length);
            b.writeBytes(m.content());
        } else if (r instanceof StreamStart m) {
            b.writeInt((int) m.xid());
            b.writeByte(m.firstSegment());
        } else if (r instanceof StreamStop m) {
        } else if (r instanceof StreamCommit m) {
            b.writeInt((int) m.xid());
            b.writeByte(m.flags());
            b.writeLong(m.commitLsn());
            b.writeLong(m.endLsn());
            b.writeLong(m.commitTimeMicros());
        } else if (r instanceof StreamAbort m) {
            b.writeInt((int) m.xid());
            b.writeInt((int) m.subXid());
            if (m.hasAbortInfo()) {
                b.writeLong(m.abortLsn());
                b.writeLong(m.abortTimeMicros());
            }
        } else if (r instanceof BeginPrepare m) {
            b.writeLong(m.prepareLsn());
            b.writeLong(m.endLsn());
            b.writeLong(m.prepareTimeMicros());
            b.writeInt((int) m.xid());
            string(b, m.gid());
        } else if (r instanceof Prepare m) {
            prepareLike(b, m.flags(), m.prepareLsn(), m.endLsn(), m.prepareTimeMicros(), m.xid(), m.gid());
        } else if (r instanceof StreamPrepare m) {
            prepareLike(b, m.flags(), m.prepareLsn(), m.endLsn(), m.prepareTimeMicros(), m.xid(), m.gid());
        } else if (r instanceof CommitPrepared m) {
            prepareLike(b, m.flags(), m.commitLsn(), m.endLsn(), m.commitTimeMicros(), m.xid(), m.gid());
        } else if (r instanceof RollbackPrepared m) {
            b.writeByte(m.flags());
            b.writeLong(m.prepareEndLsn());
            b.writeLong(m.rollbackEndLsn());
            b.writeLong(m.prepareTimeMicros());
            b.writeLong(m.rollbackTimeMicros());
            b.writeInt((int) m.xid());
            string(b, m.gid());
        }
        return b;
    }

    private static void prepareLike(ByteBuf b, int flags, long lsn, long endLsn, long time, long xid, String gid) {
        b.writeByte(flags);
        b.writeLong(lsn);
        b.writeLong(endLsn);
        b.writeLong(time);
        b.writeInt((int) xid);
        string(b, gid);
    }

    private static void xid(ByteBuf b, long xid) {
        if (xid != 0) b.writeInt((int) xid);
    }

    static void string(ByteBuf b, String s) {
        b.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        b.writeByte(0);
    }

    static void tuple(ByteBuf b, Tuple t) {
        b.writeShort(t.size());
        for (ColumnValue v : t.columns()) {
            switch (v.kind()) {
                case NULL, ABSENT -> b.writeByte('n');
                case UNCHANGED_TOAST -> b.writeByte('u');
                case TEXT, BINARY -> {
                    b.writeByte(v.kind() == ColumnKind.TEXT ? 't' : 'b');
                    b.writeInt(v.bytes().length);
                    b.writeBytes(v.bytes());
                }
            }
        }
    }
}
