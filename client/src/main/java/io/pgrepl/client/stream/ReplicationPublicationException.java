package io.pgrepl.client.stream;

import io.pgrepl.client.PgException;

/**
 * A publication named in publication_names does not exist. Never transient: a new
 * connection decodes the same WAL with the same catalog. On PostgreSQL 10-17 the walsender
 * raises it (42704) while decoding, after copy mode began; PostgreSQL 18 only sends a WARNING
 * (55000, "skipped loading publication") and streams on without the missing publication, which
 * {@link ReconnectingLogicalStream} turns into this error (sqlState 55000, beforeCopy false).
 * {@link ReconnectingLogicalStream} also checks every publication on each connection before
 * START_REPLICATION (42704, beforeCopy true).
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
