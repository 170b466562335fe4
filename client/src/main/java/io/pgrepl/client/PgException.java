package io.pgrepl.client;

import io.pgrepl.codec.backend.ErrorFields;

/**
 * An ErrorResponse from the server, typed by SQLSTATE. The message reads
 * {@code "FATAL 28P01: password authentication failed for user \"x\""}: severity, SQLSTATE and
 * the primary message only; detail, hint, where and the rest are available as fields.
 */
public class PgException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient ErrorFields fields;

    /**
     * The server's ErrorResponse.
     *
     * @param fields every field the server sent
     */
    public PgException(ErrorFields fields) {
        super(fields.severity() + " " + fields.sqlState() + ": " + fields.message());
        this.fields = fields;
    }

    /** {@return the SQLSTATE code (field C), e.g. {@code 42501}} */
    public String sqlState() {
        return fields.sqlState();
    }

    /**
     * Non-localized severity when the server sent it (9.6+): ERROR, FATAL, PANIC.
     *
     * @return the severity, or null from an older server
     */
    public String severity() {
        return fields.severity();
    }

    /** {@return the primary message (field M), without severity and code} */
    public String serverMessage() {
        return fields.message();
    }

    /** {@return the DETAIL (field D), or null} */
    public String detail() {
        return fields.detail();
    }

    /** {@return the HINT (field H), or null} */
    public String hint() {
        return fields.hint();
    }

    /** {@return the context (field W), e.g. a PL/pgSQL call stack, or null} */
    public String where() {
        return fields.where();
    }

    /**
     * Every field the server sent, including the ones without an accessor.
     *
     * @return the fields
     */
    public ErrorFields fields() {
        return fields;
    }

    /**
     * FATAL or PANIC: the server closes the connection after sending it.
     *
     * @return whether the connection is gone
     */
    public boolean isFatal() {
        String s = severity();
        return "FATAL".equals(s) || "PANIC".equals(s);
    }
}
