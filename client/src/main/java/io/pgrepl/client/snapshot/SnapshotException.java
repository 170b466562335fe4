package io.pgrepl.client.snapshot;

/** An initial snapshot that was refused or failed; {@link #kind()} says which, the cause why. */
public final class SnapshotException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Kind {
        /** Asked for without creating the slot: an exported snapshot exists only at slot creation. */
        SLOT_NOT_CREATED,
        /** The slot exists already; it was left untouched. */
        SLOT_EXISTS,
        /** A COPY failed on the server (the SQLSTATE is in the {@link io.pgrepl.client.PgException} cause). */
        COPY_FAILED,
        /** A lock wait on a table ran into the session's lock_timeout. */
        LOCK_TIMEOUT,
        /** A worker (or the replication) connection was lost. */
        CONNECTION_LOST,
        /** The snapshot handler threw. */
        HANDLER_FAILED,
        /** Anything else: catalog queries, slot creation, the subscriber cancelled. */
        FAILED
    }

    /** What went wrong. */
    private final Kind kind;
    /** The table being copied ({@code schema.table}), or null. */
    private final String table;

    /**
     * A refused or failed snapshot.
     *
     * @param kind    what went wrong
     * @param message the message
     * @param table   the table being copied ({@code schema.table}), or null
     * @param cause   the underlying failure, or null
     */
    public SnapshotException(Kind kind, String message, String table, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.table = table;
    }

    /** {@return what went wrong} */
    public Kind kind() {
        return kind;
    }

    /** {@return the table being copied when it failed ({@code schema.table}), or null} */
    public String table() {
        return table;
    }
}
