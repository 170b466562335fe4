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

    public PgException(ErrorFields fields) {
        super(fields.severity() + " " + fields.sqlState() + ": " + fields.message());
        this.fields = fields;
    }

    public String sqlState() {
        return fields.sqlState();
    }

    /** Non-localized severity when the server sent it (9.6+): ERROR, FATAL, PANIC. */
    public String severity() {
        return fields.severity();
    }

    public String serverMessage() {
        return fields.message();
    }

    public String detail() {
        return fields.detail();
    }

    public String hint() {
        return fields.hint();
    }

    public String where() {
        return fields.where();
    }

    /** Every field the server sent, including the ones without an accessor. */
    public ErrorFields fields() {
        return fields;
    }

    /** FATAL or PANIC: the server closes the connection after sending it. */
    public boolean isFatal() {
        String s = severity();
        return "FATAL".equals(s) || "PANIC".equals(s);
    }
}
