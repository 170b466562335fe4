package io.pgrepl.codec.value;

import io.pgrepl.codec.MalformedMessageException;

/**
 * A column value whose bytes do not match its type's text or binary format. The message names
 * the type and the offset within the value, never the value itself (it is user data).
 */
public class MalformedValueException extends MalformedMessageException {
    private static final long serialVersionUID = 1L;

    /**
     * Bad bytes in a column value.
     *
     * @param typeName the type's name, e.g. {@code "numeric"}
     * @param offset   byte offset within the value where the problem was found
     * @param reason   what was wrong, without the value's bytes
     */
    public MalformedValueException(String typeName, int offset, String reason) {
        super(typeName + " value", offset, reason);
    }
}
