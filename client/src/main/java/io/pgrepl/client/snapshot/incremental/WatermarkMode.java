package io.pgrepl.client.snapshot.incremental;

/** How a chunk's low and high watermarks are placed in the stream. */
public enum WatermarkMode {
    /**
     * {@link #MESSAGE} when the server is 14+ and the stream asks pgoutput for messages, else
     * {@link #SIGNAL_TABLE} when a signal table is configured, else refused.
     */
    AUTO,
    /** Transactional {@code pg_logical_emit_message(true, 'pgrepl-wm', ...)}: writes to no table (14+, pgoutput {@code messages}). */
    MESSAGE,
    /** Rows inserted into a Debezium-shaped signal table that the publication covers (any version). */
    SIGNAL_TABLE,
    /**
     * No write at all (standbys, read-only roles): the marks are WAL positions read around the
     * chunk ({@code pg_current_wal_insert_lsn()}, or {@code pg_last_wal_replay_lsn()} on a standby).
     */
    READ_ONLY
}
