package io.pgrepl.codec.pgoutput;

/** The type bytes of pgoutput messages (LogicalRepMsgType in logicalproto.h). */
public final class PgOutputMessageType {
    public static final byte BEGIN = 'B';
    public static final byte COMMIT = 'C';
    public static final byte ORIGIN = 'O';
    public static final byte RELATION = 'R';
    public static final byte TYPE = 'Y';
    public static final byte INSERT = 'I';
    public static final byte UPDATE = 'U';
    public static final byte DELETE = 'D';
    public static final byte TRUNCATE = 'T';
    public static final byte MESSAGE = 'M';
    public static final byte STREAM_START = 'S';
    public static final byte STREAM_STOP = 'E';
    public static final byte STREAM_COMMIT = 'c';
    public static final byte STREAM_ABORT = 'A';
    public static final byte BEGIN_PREPARE = 'b';
    public static final byte PREPARE = 'P';
    public static final byte COMMIT_PREPARED = 'K';
    public static final byte ROLLBACK_PREPARED = 'r';
    public static final byte STREAM_PREPARE = 'p';

    private PgOutputMessageType() {}

    /** Protocol name of a type byte, e.g. "Insert"; null if unknown. */
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

    /** For error messages: {@code "Insert ('I')"}, or {@code "unknown (0x7f)"}. */
    public static String describe(byte type) {
        String name = name(type);
        if (name != null) return name + " ('" + (char) type + "')";
        return (type >= 0x21 && type < 0x7f ? "unknown ('" + (char) type + "', " : "unknown (")
                + String.format("0x%02x)", type & 0xff);
    }
}
