package io.pgrepl.client.snapshot.incremental;

/**
 * Reads snapshot signals: the content of a {@code pg_logical_emit_message(true, 'pgrepl', json)}
 * message, or a row of a Debezium signal table (its {@code type} and {@code data} columns), with
 * Debezium's payloads accepted verbatim.
 */
public final class SnapshotSignals {
    /** The logical message prefix pgrepl listens to. */
    public static final String MESSAGE_PREFIX = "pgrepl";

    private SnapshotSignals() {}

    /**
     * Parses a logical message's content: {@code {"type":"execute-snapshot","data":{...},"slot":"s","id":"..."}}.
     *
     * @param json the message content
     * @return the signal
     * @throws MalformedSignalException naming what is wrong and where
     */
    public static SnapshotSignal parseMessage(String json) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Parses a signal table row as Debezium writes it.
     *
     * @param type     the {@code type} column, e.g. {@code execute-snapshot}
     * @param dataJson the {@code data} column (may be null or empty for pause/resume)
     * @return the signal
     * @throws MalformedSignalException naming what is wrong and where
     */
    public static SnapshotSignal parse(String type, String dataJson) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Parses a signal table row with its id column.
     *
     * @param id       the {@code id} column, or null
     * @param type     the {@code type} column
     * @param dataJson the {@code data} column
     * @return the signal
     * @throws MalformedSignalException naming what is wrong and where
     */
    public static SnapshotSignal parse(String id, String type, String dataJson) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Writes a signal as the JSON {@link #parseMessage} reads (what the CLI sends).
     *
     * @param signal the signal
     * @return the message content
     */
    public static String toMessageJson(SnapshotSignal signal) {
        throw new UnsupportedOperationException("not yet");
    }
}
