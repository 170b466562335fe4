package io.pgrepl.codec.pgoutput;

/** The type bytes of pgoutput messages (LogicalRepMsgType in logicalproto.h). */
public final class PgOutputMessageType {
    /** Begin 'B': start of a transaction. */
    public static final byte BEGIN = 'B';
    /** Commit 'C': end of a transaction. */
    public static final byte COMMIT = 'C';
    /** Origin 'O': the replication origin of a transaction. */
    public static final byte ORIGIN = 'O';
    /** Relation 'R': describes a table's columns. */
    public static final byte RELATION = 'R';
    /** Type 'Y': names a non-built-in data type. */
    public static final byte TYPE = 'Y';
    /** Insert 'I': a new row. */
    public static final byte INSERT = 'I';
    /** Update 'U': a changed row. */
    public static final byte UPDATE = 'U';
    /** Delete 'D': a removed row. */
    public static final byte DELETE = 'D';
    /** Truncate 'T': truncated relations. */
    public static final byte TRUNCATE = 'T';
    /** Message 'M': a logical decoding message (pg_logical_emit_message). */
    public static final byte MESSAGE = 'M';
    /** Stream Start 'S': a block of an in-progress transaction begins (protocol 2+). */
    public static final byte STREAM_START = 'S';
    /** Stream Stop 'E': the current stream block ends (protocol 2+). */
    public static final byte STREAM_STOP = 'E';
    /** Stream Commit 'c': a streamed transaction committed (protocol 2+). */
    public static final byte STREAM_COMMIT = 'c';
    /** Stream Abort 'A': a streamed (sub)transaction aborted (protocol 2+). */
    public static final byte STREAM_ABORT = 'A';
    /** Begin Prepare 'b': start of a two-phase transaction (protocol 3+). */
    public static final byte BEGIN_PREPARE = 'b';
    /** Prepare 'P': a two-phase transaction was prepared (protocol 3+). */
    public static final byte PREPARE = 'P';
    /** Commit Prepared 'K': a prepared transaction committed (protocol 3+). */
    public static final byte COMMIT_PREPARED = 'K';
    /** Rollback Prepared 'r': a prepared transaction rolled back (protocol 3+). */
    public static final byte ROLLBACK_PREPARED = 'r';
    /** Stream Prepare 'p': a streamed transaction was prepared (protocol 3+). */
    public static final byte STREAM_PREPARE = 'p';

    private PgOutputMessageType() {}

    /**
     * Protocol name of a type byte, as in "Logical Replication Message Formats".
     *
     * @param type the message's first byte
     * @return e.g. {@code "Insert"}, or null if unknown
     */
    public static String name(byte type) {
        return switch (type) {
            case BEGIN -> "Begin";
            case COMMIT -> "Commit";
            case ORIGIN -> "Origin";
            case RELATION -> "Relation";
            case TYPE -> "Type";
            case INSERT -> "Insert";
            case UPDATE -> "Update";
            case DELETE -> "Delete";
            case TRUNCATE -> "Truncate";
            case MESSAGE -> "Message";
            case STREAM_START -> "Stream Start";
            case STREAM_STOP -> "Stream Stop";
            case STREAM_COMMIT -> "Stream Commit";
            case STREAM_ABORT -> "Stream Abort";
            case BEGIN_PREPARE -> "Begin Prepare";
            case PREPARE -> "Prepare";
            case COMMIT_PREPARED -> "Commit Prepared";
            case ROLLBACK_PREPARED -> "Rollback Prepared";
            case STREAM_PREPARE -> "Stream Prepare";
            default -> null;
        };
    }

    /**
     * For error messages: {@code "Insert ('I')"}, or {@code "unknown (0x7f)"}.
     *
     * @param type the message's first byte
     * @return the name and the byte, for an error message
     */
    public static String describe(byte type) {
        String name = name(type);
        if (name != null) return name + " ('" + (char) type + "')";
        return (type >= 0x21 && type < 0x7f ? "unknown ('" + (char) type + "', " : "unknown (")
                + String.format("0x%02x)", type & 0xff);
    }
}
