package io.pgrepl.codec.backend;

/**
 * Type bytes of the backend (server to client) messages of protocol 3.x, named as in the
 * "Message Formats" chapter of the PostgreSQL manual.
 *
 * <p>Every view in this package decodes the <em>payload</em> of one frame: the bytes after the
 * type byte and the Int32 length, from the buffer's readerIndex to its writerIndex. Views never
 * move the buffer's indexes and never read past writerIndex. Payload-free messages (CopyDone,
 * EmptyQueryResponse, NoData, ParseComplete...) need no view; CopyData's payload is the data itself.
 */
public final class BackendMessage {
    private BackendMessage() {}

    public static final byte AUTHENTICATION = 'R';
    public static final byte BACKEND_KEY_DATA = 'K';
    public static final byte COMMAND_COMPLETE = 'C';
    public static final byte COPY_BOTH_RESPONSE = 'W';
    public static final byte COPY_DATA = 'd';
    public static final byte COPY_DONE = 'c';
    public static final byte COPY_IN_RESPONSE = 'G';
    public static final byte COPY_OUT_RESPONSE = 'H';
    public static final byte DATA_ROW = 'D';
    public static final byte EMPTY_QUERY_RESPONSE = 'I';
    public static final byte ERROR_RESPONSE = 'E';
    public static final byte NEGOTIATE_PROTOCOL_VERSION = 'v';
    public static final byte NO_DATA = 'n';
    public static final byte NOTICE_RESPONSE = 'N';
    public static final byte NOTIFICATION_RESPONSE = 'A';
    public static final byte PARAMETER_STATUS = 'S';
    public static final byte READY_FOR_QUERY = 'Z';
    public static final byte ROW_DESCRIPTION = 'T';

    /** Printable name for errors and logs: the protocol name when known, else the byte. */
    public static String name(byte type) {
        return switch (type) {
            case AUTHENTICATION -> "Authentication";
            case BACKEND_KEY_DATA -> "BackendKeyData";
            case COMMAND_COMPLETE -> "CommandComplete";
            case COPY_BOTH_RESPONSE -> "CopyBothResponse";
            case COPY_DATA -> "CopyData";
            case COPY_DONE -> "CopyDone";
            case COPY_IN_RESPONSE -> "CopyInResponse";
            case COPY_OUT_RESPONSE -> "CopyOutResponse";
            case DATA_ROW -> "DataRow";
            case EMPTY_QUERY_RESPONSE -> "EmptyQueryResponse";
            case ERROR_RESPONSE -> "ErrorResponse";
            case NEGOTIATE_PROTOCOL_VERSION -> "NegotiateProtocolVersion";
            case NO_DATA -> "NoData";
            case NOTICE_RESPONSE -> "NoticeResponse";
            case NOTIFICATION_RESPONSE -> "NotificationResponse";
            case PARAMETER_STATUS -> "ParameterStatus";
            case READY_FOR_QUERY -> "ReadyForQuery";
            case ROW_DESCRIPTION -> "RowDescription";
            default -> (type >= 0x20 && type < 0x7f) ? "'" + (char) type + "'" : "0x" + Integer.toHexString(type & 0xff);
        };
    }
}
