package io.pgrepl.client.stream;

import io.pgrepl.client.PgException;

/**
 * A publication named in publication_names does not exist (42704). Never transient: a new
 * connection decodes the same WAL with the same catalog. On PostgreSQL 10-17 the walsender
 * raises it while decoding (after copy mode began); PostgreSQL 18 only logs a WARNING and
 * streams on without the missing publication, so {@link ReconnectingLogicalStream} checks every
 * publication on each connection before START_REPLICATION (beforeCopy is then true).
 */
public final class ReplicationPublicationException extends ReplicationServerErrorException {
    private static final long serialVersionUID = 1L;

    ReplicationPublicationException(PgException cause, boolean beforeCopy) {
        super("publication missing: " + cause.getMessage(), cause, beforeCopy);
    }

    @Override
    public boolean isTransient() {
        return false;
    }
}
