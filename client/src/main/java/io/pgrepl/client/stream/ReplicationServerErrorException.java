package io.pgrepl.client.stream;

import io.pgrepl.client.PgException;

/**
 * The server sent an ErrorResponse: before CopyBothResponse (bad option, missing slot, slot
 * active: the connection stays usable) or during the stream (copy mode ended; ERROR leaves the
 * connection usable, FATAL closes it). The {@link PgException} cause carries every field.
 */
public final class ReplicationServerErrorException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    private final boolean beforeCopy;

    /**
     * The server's error ended or refused the stream.
     *
     * @param cause      the server's error, with every field
     * @param beforeCopy whether it came before CopyBothResponse
     */
    public ReplicationServerErrorException(PgException cause, boolean beforeCopy) {
        super((beforeCopy ? "START_REPLICATION refused: " : "replication stream ended by server error: ") + cause.getMessage(),
                cause);
        this.beforeCopy = beforeCopy;
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

    /** Admin shutdown/terminate (57P01), slot still active elsewhere (55006), or any FATAL/connection class error. */
    @Override
    public boolean isTransient() {
        String s = sqlState();
        return s != null && (s.equals("57P01") || s.equals("57P02") || s.equals("57P03") || s.equals("55006")
                || s.equals("53300") || s.startsWith("08"));
    }
}
