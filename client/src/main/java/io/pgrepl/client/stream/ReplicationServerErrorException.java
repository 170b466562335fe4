package io.pgrepl.client.stream;

import io.pgrepl.client.PgException;

/**
 * The server sent an ErrorResponse: before CopyBothResponse (bad option, missing slot, slot
 * active: the connection stays usable) or during the stream (copy mode ended; ERROR leaves the
 * connection usable, FATAL closes it). The {@link PgException} cause carries every field.
 *
 * <p>{@link #classify} is the one place SQLSTATEs become types: slot conditions are
 * {@link ReplicationSlotException}, a missing publication {@link ReplicationPublicationException};
 * the rest stay this class, transient only for the connection/shutdown classes listed at
 * {@link #isTransient()}.
 */
public sealed class ReplicationServerErrorException extends ReplicationException
        permits ReplicationSlotException, ReplicationPublicationException {
    private static final long serialVersionUID = 1L;

    /** object_in_use: START_REPLICATION on a slot another walsender holds. */
    static final String SLOT_IN_USE = "55006";
    /** undefined_object: the slot at START; a publication while decoding (PostgreSQL 10-17). */
    static final String UNDEFINED_OBJECT = "42704";
    /** object_not_in_prerequisite_state: at START, a slot that cannot be used (invalidated, other database, physical). */
    static final String NOT_IN_PREREQUISITE_STATE = "55000";

    /** Whether the error came before CopyBothResponse (the connection then stays usable). */
    private final boolean beforeCopy;

    /**
     * The server's error ended or refused the stream.
     *
     * @param cause      the server's error, with every field
     * @param beforeCopy whether it came before CopyBothResponse
     */
    public ReplicationServerErrorException(PgException cause, boolean beforeCopy) {
        this((beforeCopy ? "START_REPLICATION refused: " : "replication stream ended by server error: ") + cause.getMessage(),
                cause, beforeCopy);
    }

    ReplicationServerErrorException(String message, PgException cause, boolean beforeCopy) {
        super(message, cause);
        this.beforeCopy = beforeCopy;
    }

    /**
     * The typed exception for a server error seen by a replication stream.
     *
     * @param e          the server's error
     * @param beforeCopy whether it came before CopyBothResponse
     * @return a slot or publication exception where the SQLSTATE says so, else this class
     */
    public static ReplicationServerErrorException classify(PgException e, boolean beforeCopy) {
        String s = e.sqlState();
        if (SLOT_IN_USE.equals(s)) {
            return new ReplicationSlotException(ReplicationSlotException.Condition.IN_USE, null, e, beforeCopy);
        }
        if (UNDEFINED_OBJECT.equals(s)) {
            // START_REPLICATION looks up the slot and nothing else by name; pgoutput looks up
            // publications only while decoding, i.e. after copy mode began.
            return beforeCopy
                    ? new ReplicationSlotException(ReplicationSlotException.Condition.MISSING, null, e, true)
                    : new ReplicationPublicationException(e, false);
        }
        if (NOT_IN_PREREQUISITE_STATE.equals(s) && beforeCopy) {
            return new ReplicationSlotException(ReplicationSlotException.Condition.UNUSABLE, e.detail(), e, true);
        }
        return new ReplicationServerErrorException(e, beforeCopy);
    }

    /**
     * The server's error.
     *
     * @return the ErrorResponse as an exception: severity, SQLSTATE, message, detail, hint, ...
     */
    public PgException serverError() {
        return (PgException) getCause();
    }

    /**
     * The server error's SQLSTATE.
     *
     * @return e.g. {@code 42704} for a missing slot, {@code 55006} for an active one
     */
    public String sqlState() {
        return serverError().sqlState();
    }

    /**
     * Whether the error came before the server entered copy mode.
     *
     * @return true for a refused START_REPLICATION
     */
    public boolean beforeCopy() {
        return beforeCopy;
    }

    /**
     * Admin shutdown/terminate (57P01-57P03), too many connections (53300), a connection-class
     * error (08xxx), or a recovery conflict (40001) on a standby. Slot and publication conditions
     * are never transient (see the subclasses).
     *
     * <p>A standby cancels a logical walsender with 40001 ("conflict with recovery") both when its
     * slot must be invalidated and for conflicts the slot survives; only a new START_REPLICATION
     * tells which, and on an invalidated slot it fails with a non-transient
     * {@link ReplicationSlotException} that names the reason.
     */
    @Override
    public boolean isTransient() {
        String s = sqlState();
        return s != null && (s.equals("57P01") || s.equals("57P02") || s.equals("57P03")
                || s.equals("53300") || s.startsWith("08") || s.equals(SERIALIZATION_FAILURE));
    }

    /** serialization_failure: how a hot standby cancels a session in conflict with recovery. */
    static final String SERIALIZATION_FAILURE = "40001";
}
