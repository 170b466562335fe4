package io.pgrepl.client.snapshot.incremental;

/**
 * Where one table's incremental snapshot stands.
 *
 * @param table         {@code schema.table}
 * @param status        its state
 * @param chunks        chunks emitted so far
 * @param rows          rows emitted as reads so far (chunk rows superseded by stream changes are not counted)
 * @param estimatedRows the planner's estimate of the table's rows, or -1 before planning
 * @param error         why it failed, or null
 */
public record TableProgress(String table, Status status, long chunks, long rows, long estimatedRows, String error) {
    /** A table's state. */
    public enum Status {
        /** Asked for; its key and columns are being read from the catalog. */
        PLANNING,
        /** Chunks are being read and emitted. */
        RUNNING,
        /** Paused: no new chunk starts until resumed; the stream goes on. */
        PAUSED,
        /** Every row was emitted. */
        COMPLETED,
        /** Stopped by a signal or the API before the end. */
        STOPPED,
        /** Refused or failed; {@link TableProgress#error()} says why. */
        FAILED,
        /**
         * Refused unread: the {@link CaptureScope} leaves the table (or a column of its key) out.
         * {@link TableProgress#error()} is the scope's reason; no chunk, row count or estimate is
         * reported, and a table refused by name was not looked up at all.
         */
        EXCLUDED
    }
}
