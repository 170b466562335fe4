package io.pgrepl.codec.pgoutput;

import io.pgrepl.codec.MalformedMessageException;

/** A change for a relation OID that no Relation message has described on this stream. */
public class UnknownRelationException extends MalformedMessageException {
    private static final long serialVersionUID = 1L;
    /** The undescribed relation (serialized form). */
    private final int relationOid;

    /**
     * A change naming a relation the stream has not described.
     *
     * @param messageType the message's protocol name, e.g. {@code "Insert"}
     * @param offset      byte offset of the OID within the message
     * @param relationOid the OID as sent
     */
    public UnknownRelationException(String messageType, int offset, int relationOid) {
        super(messageType, offset, "relation OID " + Integer.toUnsignedString(relationOid)
                + " was not described by a Relation message on this stream");
        this.relationOid = relationOid;
    }

    /**
     * The relation OID no Relation message described.
     *
     * @return the {@code pg_class} OID as sent
     */
    public int relationOid() {
        return relationOid;
    }
}
