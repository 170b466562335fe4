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

    /** Authentication* family: a request or outcome of authentication ({@link AuthenticationRequest}). */
    public static final byte AUTHENTICATION = 'R';
    /** BackendKeyData: the pid and cancel key ({@link BackendKeyData}). */
    public static final byte BACKEND_KEY_DATA = 'K';
    /** CommandComplete: a command finished; carries its tag ({@link CommandComplete}). */
    public static final byte COMMAND_COMPLETE = 'C';
    /** CopyBothResponse: START_REPLICATION entered copy-both mode ({@link CopyResponse}). */
    public static final byte COPY_BOTH_RESPONSE = 'W';
    /** CopyData: a chunk of COPY data or one replication message. */
    public static final byte COPY_DATA = 'd';
    /** CopyDone: the server has no more COPY data; no payload. */
    public static final byte COPY_DONE = 'c';
    /** CopyInResponse: the server is ready for COPY FROM STDIN data ({@link CopyResponse}). */
    public static final byte COPY_IN_RESPONSE = 'G';
    /** CopyOutResponse: COPY TO STDOUT data follows ({@link CopyResponse}). */
    public static final byte COPY_OUT_RESPONSE = 'H';
    /** DataRow: one row of a query result ({@link DataRow}). */
    public static final byte DATA_ROW = 'D';
    /** EmptyQueryResponse: the query string was empty; no payload. */
    public static final byte EMPTY_QUERY_RESPONSE = 'I';
    /** ErrorResponse: the command failed ({@link ErrorFields}). */
    public static final byte ERROR_RESPONSE = 'E';
    /** NegotiateProtocolVersion: the server supports an older minor version or not all options ({@link NegotiateProtocolVersion}). */
    public static final byte NEGOTIATE_PROTOCOL_VERSION = 'v';
    /** NoData: the statement returns no rows; no payload. */
    public static final byte NO_DATA = 'n';
    /** NoticeResponse: a warning or notice, same fields as ErrorResponse ({@link ErrorFields}). */
    public static final byte NOTICE_RESPONSE = 'N';
    /** NotificationResponse: a NOTIFY for a channel this session listens on ({@link NotificationResponse}). */
    public static final byte NOTIFICATION_RESPONSE = 'A';
    /** ParameterStatus: a run-time parameter's current value ({@link ParameterStatus}). */
    public static final byte PARAMETER_STATUS = 'S';
    /** ReadyForQuery: the server is idle and reports the transaction status ({@link ReadyForQuery}). */
    public static final byte READY_FOR_QUERY = 'Z';
    /** RowDescription: the columns of the rows that follow ({@link RowDescription}). */
    public static final byte ROW_DESCRIPTION = 'T';

    /**
     * Printable name for errors and logs: the protocol name when known, else the byte.
     *
     * @param type the message's type byte
     * @return e.g. {@code "ErrorResponse"}, or {@code "'x'"} / {@code "0x01"} for an unknown byte
     */
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
