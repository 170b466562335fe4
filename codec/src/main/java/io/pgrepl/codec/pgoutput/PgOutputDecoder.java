package io.pgrepl.codec.pgoutput;

import static io.pgrepl.codec.pgoutput.PgOutputMessageType.*;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes one pgoutput message (the data of one XLogData) and calls the matching
 * {@link PgOutputHandler} method with a reusable flyweight view. Protocol versions 1 to 4,
 * servers 10 to 18.
 *
 * <p>Every length is checked against the end of the message before anything is read or
 * allocated; bad input raises {@link MalformedMessageException} (an
 * {@link UnknownMessageTypeException} for an unknown type byte, an
 * {@link UnknownRelationException} for a change to an undescribed relation) naming the message
 * type and the offset from the type byte. Nothing is read outside the message, and state (stream
 * block, caches) changes only after the whole message validated.
 *
 * <p>Bytes after the last field are ignored: servers extended messages by appending fields
 * before (Stream Abort in v4), and the built-in subscriber does not check either.
 *
 * <p>Decoding Insert/Update/Delete/Begin/Commit allocates nothing once the tuple arrays have grown
 * to the widest relation. Not thread-safe: one decoder per stream.
 */
public final class PgOutputDecoder {
    /** Error-message names per type byte, built once so the bounds checks never build strings. */
    private static final String[] DESCRIPTIONS = new String[256];

    static {
        for (int b = 0; b < 256; b++) DESCRIPTIONS[b] = PgOutputMessageType.describe((byte) b);
    }

    private final PgOutputState state;

    private final BeginMessage begin = new BeginMessage();
    private final CommitMessage commit = new CommitMessage();
    private final OriginMessage origin = new OriginMessage();
    private final RelationMessage relation = new RelationMessage();
    private final TypeMessage typeMsg = new TypeMessage();
    private final InsertMessage insert = new InsertMessage();
    private final UpdateMessage update = new UpdateMessage();
    private final DeleteMessage delete = new DeleteMessage();
    private final TruncateMessage truncate = new TruncateMessage();
    private final LogicalMessage logical = new LogicalMessage();
    private final StreamStartMessage streamStart = new StreamStartMessage();
    private final StreamStopMessage streamStop = new StreamStopMessage();
    private final StreamCommitMessage streamCommit = new StreamCommitMessage();
    private final StreamAbortMessage streamAbort = new StreamAbortMessage();
    private final BeginPrepareMessage beginPrepare = new BeginPrepareMessage();
    private final PrepareMessage prepare = new PrepareMessage();
    private final CommitPreparedMessage commitPrepared = new CommitPreparedMessage();
    private final RollbackPreparedMessage rollbackPrepared = new RollbackPreparedMessage();

    /** A decoder with its own, empty {@link PgOutputState}. */
    public PgOutputDecoder() {
        this(new PgOutputState());
    }

    /**
     * A decoder that reads and updates the given state, e.g. one seeded from a capture.
     *
     * @param state the stream state; shared with no other decoder
     */
    public PgOutputDecoder(PgOutputState state) {
        this.state = state;
        truncate.state = state;
    }

    /**
     * The stream state this decoder updates: stream block and relation and type caches.
     *
     * @return the state
     */
    public PgOutputState state() {
        return state;
    }

    /**
     * Decodes the readable bytes of {@code message} (reader index at the type byte) as exactly one pgoutput message. The reader index is not moved.
     *
     * @param message the message, type byte at the reader index
     * @param handler receives the view; valid only during the call
     * @throws MalformedMessageException if the bytes are not one valid message
     */
    public void decode(ByteBuf message, PgOutputHandler handler) {
        decode(message, message.readerIndex(), message.readableBytes(), handler);
    }

    /**
     * Decodes bytes {@code [index, index + length)} of {@code buf}, e.g. the data of an XLogData view without slicing it.
     *
     * @param buf     the buffer holding the message
     * @param index   absolute index of the type byte
     * @param length  length of the message in bytes
     * @param handler receives the view; valid only during the call
     * @throws MalformedMessageException if the bytes are not one valid message
     * @throws IllegalArgumentException if the range lies outside {@code buf}
     */
    public void decode(ByteBuf buf, int index, int length, PgOutputHandler handler) {
        if (length <= 0) throw new MalformedMessageException("pgoutput", 0, "empty message");
        if (index < 0 || index > buf.capacity() - length) {
            throw new IllegalArgumentException("range [" + index + ", +" + length + ") outside buffer");
        }
        int end = index + length;
        byte type = buf.getByte(index);
        switch (type) {
            case BEGIN -> {
                require(type, buf, index, index + 1, BeginMessage.LENGTH - 1, end, "Begin fields");
                begin.wrapMessage(buf, index, end);
                handler.onBegin(begin);
            }
            case COMMIT -> {
                require(type, buf, index, index + 1, CommitMessage.LENGTH - 1, end, "Commit fields");
                commit.wrapMessage(buf, index, end);
                handler.onCommit(commit);
            }
            case ORIGIN -> {
                require(type, buf, index, index + 1, 8, end, "origin LSN");
                origin.nameEnd = cstring(type, buf, index, index + 9, end);
                origin.wrapMessage(buf, index, end);
                handler.onOrigin(origin);
            }
            case RELATION -> decodeRelation(buf, index, end, handler);
            case TYPE -> decodeType(buf, index, end, handler);
            case INSERT -> decodeInsert(buf, index, end, handler);
            case UPDATE -> decodeUpdate(buf, index, end, handler);
            case DELETE -> decodeDelete(buf, index, end, handler);
            case TRUNCATE -> decodeTruncate(buf, index, end, handler);
            case MESSAGE -> decodeLogicalMessage(buf, index, end, handler);
            case STREAM_START -> {
                require(type, buf, index, index + 1, StreamStartMessage.LENGTH - 1, end, "Stream Start fields");
                streamStart.wrapMessage(buf, index, end);
                // A Stream Start inside an open block is not something servers send; following the
                // newest Start keeps the xid prefix right for what comes next.
                state.enterStream(streamStart.xid());
                handler.onStreamStart(streamStart);
            }
            case STREAM_STOP -> {
                streamStop.wrapMessage(buf, index, end);
                state.leaveStream();
                handler.onStreamStop(streamStop);
            }
            case STREAM_COMMIT -> {
                require(type, buf, index, index + 1, StreamCommitMessage.LENGTH - 1, end, "Stream Commit fields");
                streamCommit.wrapMessage(buf, index, end);
                handler.onStreamCommit(streamCommit);
            }
            case STREAM_ABORT -> {
                if (length >= StreamAbortMessage.LONG_LENGTH) {
                    streamAbort.hasAbortInfo = true;
                } else if (length == StreamAbortMessage.SHORT_LENGTH) {
                    streamAbort.hasAbortInfo = false;
                } else {
                    throw malformed(type, length, "Stream Abort has " + (length - 1)
                            + " bytes after the type; expected 8 (xid, subxid) or 24 (with abort LSN and time)");
                }
                streamAbort.wrapMessage(buf, index, end);
                handler.onStreamAbort(streamAbort);
            }
            case BEGIN_PREPARE -> {
                require(type, buf, index, index + 1, BeginPrepareMessage.FIXED - 1, end, "Begin Prepare fields");
                beginPrepare.gidEnd = cstring(type, buf, index, index + BeginPrepareMessage.FIXED, end);
                beginPrepare.wrapMessage(buf, index, end);
                handler.onBeginPrepare(beginPrepare);
            }
            case PREPARE, STREAM_PREPARE -> {
                require(type, buf, index, index + 1, PrepareMessage.FIXED - 1, end, "Prepare fields");
                prepare.gidEnd = cstring(type, buf, index, index + PrepareMessage.FIXED, end);
                prepare.type = type;
                prepare.wrapMessage(buf, index, end);
                if (type == PREPARE) handler.onPrepare(prepare);
                else handler.onStreamPrepare(prepare);
            }
            case COMMIT_PREPARED -> {
                require(type, buf, index, index + 1, CommitPreparedMessage.FIXED - 1, end, "Commit Prepared fields");
                commitPrepared.gidEnd = cstring(type, buf, index, index + CommitPreparedMessage.FIXED, end);
                commitPrepared.wrapMessage(buf, index, end);
                handler.onCommitPrepared(commitPrepared);
            }
            case ROLLBACK_PREPARED -> {
                require(type, buf, index, index + 1, RollbackPreparedMessage.FIXED - 1, end, "Rollback Prepared fields");
                rollbackPrepared.gidEnd = cstring(type, buf, index, index + RollbackPreparedMessage.FIXED, end);
                rollbackPrepared.wrapMessage(buf, index, end);
                handler.onRollbackPrepared(rollbackPrepared);
            }
            default -> throw new UnknownMessageTypeException(type);
        }
    }

    /** Reads the optional xid prefix into {@code m}; returns the index after it. */
    private int streamPrefix(byte type, ByteBuf buf, int start, int end, StreamableMessage m) {
        int pos = start + 1;
        if (state.inStreamBlock()) {
            require(type, buf, start, pos, 4, end, "xid");
            m.wrapStreamable(true, buf.getUnsignedInt(pos), pos + 4);
            return pos + 4;
        }
        m.wrapStreamable(false, 0L, pos);
        return pos;
    }

    private void decodeRelation(ByteBuf buf, int start, int end, PgOutputHandler handler) {
        byte type = RELATION;
        int pos = streamPrefix(type, buf, start, end, relation);
        require(type, buf, start, pos, 4, end, "relation OID");
        int oid = buf.getInt(pos);
        pos += 4;
        int nsEnd = cstring(type, buf, start, pos, end);
        String namespace = utf8(buf, pos, nsEnd);
        pos = nsEnd + 1;
        int nameEnd = cstring(type, buf, start, pos, end);
        String name = utf8(buf, pos, nameEnd);
        pos = nameEnd + 1;
        require(type, buf, start, pos, 3, end, "replica identity and column count");
        char replIdent = (char) buf.getUnsignedByte(pos);
        int ncols = buf.getUnsignedShort(pos + 1);
        pos += 3;
        // Smallest column: flags, empty name's NUL, type OID, typmod.
        if ((long) ncols * 10 > end - pos) {
            throw malformed(type, pos - start, ncols + " columns cannot fit in the " + (end - pos) + " bytes left");
        }
        List<ColumnInfo> columns = new ArrayList<>(ncols);
        for (int i = 0; i < ncols; i++) {
            require(type, buf, start, pos, 1, end, "column flags");
            int flags = buf.getUnsignedByte(pos);
            pos++;
            int colEnd = cstring(type, buf, start, pos, end);
            String colName = utf8(buf, pos, colEnd);
            pos = colEnd + 1;
            require(type, buf, start, pos, 8, end, "column type OID and typmod");
            columns.add(new ColumnInfo(flags, colName, buf.getInt(pos), buf.getInt(pos + 4)));
            pos += 8;
        }
        RelationInfo info = new RelationInfo(oid, namespace, name, replIdent, columns);
        state.putRelation(info);
        relation.relation = info;
        relation.wrapMessage(buf, start, end);
        handler.onRelation(relation);
    }

    private void decodeType(ByteBuf buf, int start, int end, PgOutputHandler handler) {
        byte type = TYPE;
        int pos = streamPrefix(type, buf, start, end, typeMsg);
        require(type, buf, start, pos, 4, end, "type OID");
        int oid = buf.getInt(pos);
        pos += 4;
        int nsEnd = cstring(type, buf, start, pos, end);
        String namespace = utf8(buf, pos, nsEnd);
        pos = nsEnd + 1;
        int nameEnd = cstring(type, buf, start, pos, end);
        TypeInfo info = new TypeInfo(oid, namespace, utf8(buf, pos, nameEnd));
        state.putType(info);
        typeMsg.typeInfo = info;
        typeMsg.wrapMessage(buf, start, end);
        handler.onType(typeMsg);
    }

    private RelationInfo knownRelation(byte type, ByteBuf buf, int start, int pos, int end) {
        require(type, buf, start, pos, 4, end, "relation OID");
        int oid = buf.getInt(pos);
        RelationInfo rel = state.relation(oid);
        if (rel == null) throw new UnknownRelationException(DESCRIPTIONS[type & 0xff], pos - start, oid);
        return rel;
    }

    private void decodeInsert(ByteBuf buf, int start, int end, PgOutputHandler handler) {
        byte type = INSERT;
        int pos = streamPrefix(type, buf, start, end, insert);
        RelationInfo rel = knownRelation(type, buf, start, pos, end);
        pos += 4;
        require(type, buf, start, pos, 1, end, "tuple marker");
        byte marker = buf.getByte(pos);
        if (marker != 'N') throw malformed(type, pos - start, "expected new tuple marker 'N', got " + byteText(marker));
        readTuple(type, buf, start, pos + 1, end, rel, false, insert.newTuple);
        insert.relation = rel;
        insert.wrapMessage(buf, start, end);
        handler.onInsert(insert);
    }

    private void decodeUpdate(ByteBuf buf, int start, int end, PgOutputHandler handler) {
        byte type = UPDATE;
        int pos = streamPrefix(type, buf, start, end, update);
        RelationInfo rel = knownRelation(type, buf, start, pos, end);
        pos += 4;
        require(type, buf, start, pos, 1, end, "tuple marker");
        byte marker = buf.getByte(pos);
        byte oldKind = 0;
        if (marker == 'K' || marker == 'O') {
            oldKind = marker;
            pos = readTuple(type, buf, start, pos + 1, end, rel, marker == 'K', update.oldTuple);
            require(type, buf, start, pos, 1, end, "new tuple marker");
            marker = buf.getByte(pos);
        }
        if (marker != 'N') {
            throw malformed(type, pos - start, "expected tuple marker " + (oldKind == 0 ? "'K', 'O' or " : "")
                    + "'N', got " + byteText(marker));
        }
        readTuple(type, buf, start, pos + 1, end, rel, false, update.newTuple);
        update.oldKind = oldKind;
        update.relation = rel;
        update.wrapMessage(buf, start, end);
        handler.onUpdate(update);
    }

    private void decodeDelete(ByteBuf buf, int start, int end, PgOutputHandler handler) {
        byte type = DELETE;
        int pos = streamPrefix(type, buf, start, end, delete);
        RelationInfo rel = knownRelation(type, buf, start, pos, end);
        pos += 4;
        require(type, buf, start, pos, 1, end, "tuple marker");
        byte marker = buf.getByte(pos);
        if (marker != 'K' && marker != 'O') {
            throw malformed(type, pos - start, "expected tuple marker 'K' or 'O', got " + byteText(marker));
        }
        readTuple(type, buf, start, pos + 1, end, rel, marker == 'K', delete.oldTuple);
        delete.oldKind = marker;
        delete.relation = rel;
        delete.wrapMessage(buf, start, end);
        handler.onDelete(delete);
    }

    /** Walks one TupleData, recording kinds and value positions; returns the index after it. */
    private int readTuple(byte type, ByteBuf buf, int start, int pos, int end, RelationInfo rel, boolean keyOnly,
                          TupleView view) {
        require(type, buf, start, pos, 2, end, "tuple column count");
        int ncols = buf.getUnsignedShort(pos);
        if (ncols != rel.columnCount()) {
            throw malformed(type, pos - start, "tuple has " + ncols + " columns but relation "
                    + Integer.toUnsignedString(rel.oid()) + " has " + rel.columnCount());
        }
        pos += 2;
        if (ncols > end - pos) {
            throw malformed(type, pos - start, ncols + " columns cannot fit in the " + (end - pos) + " bytes left");
        }
        view.reset(buf, rel, keyOnly, ncols);
        for (int i = 0; i < ncols; i++) {
            require(type, buf, start, pos, 1, end, "column kind");
            byte kind = buf.getByte(pos);
            pos++;
            switch (kind) {
                case 'n' -> view.set(i, keyOnly && !rel.isKey(i) ? ColumnKind.ABSENT : ColumnKind.NULL, -1, -1);
                case 'u' -> view.set(i, ColumnKind.UNCHANGED_TOAST, -1, -1);
                case 't', 'b' -> {
                    require(type, buf, start, pos, 4, end, "column value length");
                    int len = buf.getInt(pos);
                    pos += 4;
                    if (len < 0 || len > end - pos) {
                        throw malformed(type, pos - 4 - start, "column " + i + " value length " + len
                                + " outside the " + (end - pos) + " bytes left");
                    }
                    view.set(i, kind == 't' ? ColumnKind.TEXT : ColumnKind.BINARY, pos, len);
                    pos += len;
                }
                default -> throw malformed(type, pos - 1 - start, "column " + i + " has unknown kind " + byteText(kind));
            }
        }
        return pos;
    }

    private void decodeTruncate(ByteBuf buf, int start, int end, PgOutputHandler handler) {
        byte type = TRUNCATE;
        int pos = streamPrefix(type, buf, start, end, truncate);
        require(type, buf, start, pos, 5, end, "relation count and options");
        int n = buf.getInt(pos);
        if (n < 0 || (long) n * 4 > end - pos - 5) {
            throw malformed(type, pos - start, "relation count " + Integer.toUnsignedString(n)
                    + " does not fit in the " + (end - pos - 5) + " bytes left");
        }
        truncate.count = n;
        truncate.wrapMessage(buf, start, end);
        handler.onTruncate(truncate);
    }

    private void decodeLogicalMessage(ByteBuf buf, int start, int end, PgOutputHandler handler) {
        byte type = MESSAGE;
        int pos = streamPrefix(type, buf, start, end, logical);
        require(type, buf, start, pos, 9, end, "flags and LSN");
        int prefixEnd = cstring(type, buf, start, pos + 9, end);
        int p = prefixEnd + 1;
        require(type, buf, start, p, 4, end, "content length");
        int len = buf.getInt(p);
        p += 4;
        if (len < 0 || len > end - p) {
            throw malformed(type, p - 4 - start, "content length " + len + " outside the " + (end - p) + " bytes left");
        }
        logical.prefixEnd = prefixEnd;
        logical.contentIndex = p;
        logical.contentLength = len;
        logical.wrapMessage(buf, start, end);
        handler.onMessage(logical);
    }

    private static String utf8(ByteBuf buf, int from, int to) {
        return Wire.utf8(buf, from, to);
    }

    private static void require(byte type, ByteBuf buf, int start, int pos, int need, int end, String what) {
        Wire.require(pos, need, end, DESCRIPTIONS[type & 0xff], start, what);
    }

    /** Index of the NUL ending the String at {@code pos}. */
    private static int cstring(byte type, ByteBuf buf, int start, int pos, int end) {
        return Wire.cstringEnd(buf, pos, end, DESCRIPTIONS[type & 0xff], start);
    }

    private static MalformedMessageException malformed(byte type, int offset, String reason) {
        return new MalformedMessageException(DESCRIPTIONS[type & 0xff], offset, reason);
    }

    private static String byteText(byte b) {
        return b >= 0x21 && b < 0x7f ? "'" + (char) b + "'" : String.format("0x%02x", b & 0xff);
    }
}
