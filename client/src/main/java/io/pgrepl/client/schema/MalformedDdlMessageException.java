package io.pgrepl.client.schema;

/**
 * A logical message with the prefix {@value SchemaTracker#DDL_PREFIX} that is not what pgrepl's DDL
 * capture writes (another version of the script, or someone else's message under that prefix).
 * The message itself is still delivered as a logical message; only its schema change is lost.
 */
public final class MalformedDdlMessageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong, naming the field */
    public MalformedDdlMessageException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong
     * @param cause   the JSON error
     */
    public MalformedDdlMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
