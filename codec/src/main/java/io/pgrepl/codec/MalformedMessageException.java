package io.pgrepl.codec;

/**
 * Bytes that do not form a valid message: truncated, a hostile length or count, an unknown
 * type or tuple kind. The one exception every decoder in this module throws for bad input;
 * it names where decoding stopped so a capture can be inspected at that byte.
 */
public class MalformedMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The message being decoded (serialized form). */
    private final String messageType;
    /** Where decoding stopped (serialized form). */
    private final int offset;
    /** What was wrong (serialized form). */
    private final String reason;

    /**
     * Bad bytes in a message.
     *
     * @param messageType the protocol name or type byte of the message being decoded, e.g. {@code "R"}
     * @param offset      byte offset within the message where the problem was found
     * @param reason      what was wrong, without any payload bytes (they may hold secrets or user data)
     */
    public MalformedMessageException(String messageType, int offset, String reason) {
        super("malformed " + messageType + " message at offset " + offset + ": " + reason);
        this.messageType = messageType;
        this.offset = offset;
        this.reason = reason;
    }

    /**
     * The message being decoded.
     *
     * @return its protocol name or type byte, e.g. {@code "Insert"}
     */
    public String messageType() {
        return messageType;
    }

    /**
     * Where decoding stopped.
     *
     * @return the byte offset within the message
     */
    public int offset() {
        return offset;
    }

    /**
     * What was wrong.
     *
     * @return the reason, without payload bytes
     */
    public String reason() {
        return reason;
    }
}
