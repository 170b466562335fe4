package io.pgrepl.codec.pgoutput;

import io.pgrepl.codec.MalformedMessageException;

/** A change for a relation OID that no Relation message has described on this stream. */
public class UnknownRelationException extends MalformedMessageException {
    private static final long serialVersionUID = 1L;
    private final int relationOid;

    public UnknownRelationException(String messageType, int offset, int relationOid) {
        super(messageType, offset, "relation OID " + Integer.toUnsignedString(relationOid)
                + " was not described by a Relation message on this stream");
        this.relationOid = relationOid;
    }

    public int relationOid() {
        return relationOid;
    }
}
