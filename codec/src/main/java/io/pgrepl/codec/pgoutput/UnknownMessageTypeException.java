package io.pgrepl.codec.pgoutput;

import io.pgrepl.codec.MalformedMessageException;

/**
 * A pgoutput message type byte this decoder does not know. Separate from other malformed input
 * so a stream layer can log and skip it (a future server may add types) instead of failing.
 */
public class UnknownMessageTypeException extends MalformedMessageException {
    private static final long serialVersionUID = 1L;
    /** The unknown type byte (serialized form). */
    private final byte typeByte;

    /**
     * An unknown type byte at the start of a message.
     *
     * @param typeByte the type byte as received
     */
    public UnknownMessageTypeException(byte typeByte) {
        super(PgOutputMessageType.describe(typeByte), 0, "unknown pgoutput message type");
        this.typeByte = typeByte;
    }

    /**
     * The type byte that was not recognised.
     *
     * @return the byte as received
     */
    public byte typeByte() {
        return typeByte;
    }
}
