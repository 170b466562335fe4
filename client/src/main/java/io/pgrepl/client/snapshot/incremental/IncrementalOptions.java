package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.ReplicationMode;
import java.util.Objects;

/**
 * How incremental snapshots run beside a logical stream.
 *
 * @param ordinary          where chunks are read: the stream's database, as an ordinary
 *                          (replication=none) connection; one per worker
 * @param chunkSize         rows per chunk
 * @param watermarks        how chunks are bracketed in the stream
 * @param signalTable       a Debezium-shaped signal table ({@code schema.table}) in the
 *                          publication, for watermarks on 10-13 and signals; or null
 * @param workersPerTable   key ranges (and connections) per table
 * @param parallelTables    tables snapshotted at once
 * @param resumeState       a {@link IncrementalSnapshots#state()} saved earlier, or null
 * @param acceptMessageSignals whether {@code pgrepl} logical messages start, stop, pause and resume
 *                          snapshots. Off by default: PostgreSQL checks no privilege on
 *                          {@code pg_logical_emit_message}, so any role that can connect could
 *                          otherwise steer the snapshot and have its additional conditions run as the
 *                          stream's role. Rows of a configured signal table are always acted on: its
 *                          INSERT privilege says who may signal.
 * @param capture           the tables and columns the application captures: the engine refuses any other,
 *                          without reading or looking it up ({@link CaptureScope})
 */
public record IncrementalOptions(ConnectionConfig ordinary, int chunkSize, WatermarkMode watermarks, String signalTable,
                                 int workersPerTable, int parallelTables, String resumeState, boolean acceptMessageSignals,
                                 CaptureScope capture) {
    /** The default chunk size, Debezium's. */
    public static final int DEFAULT_CHUNK_SIZE = 1024;

    /**
     * Checks the values (a resume state that does not parse throws {@link IllegalArgumentException}
     * naming the line); the connection is made ordinary.
     *
     * @param ordinary        where chunks are read
     * @param chunkSize       rows per chunk, at least 1
     * @param watermarks      how chunks are bracketed
     * @param signalTable     the signal table, or null
     * @param workersPerTable key ranges per table, at least 1
     * @param parallelTables  tables at once, at least 1
     * @param resumeState     a saved state, or null
     * @param acceptMessageSignals   whether signals from the stream are acted on
     * @param capture         what the application captures
     */
    public IncrementalOptions {
        Objects.requireNonNull(ordinary, "ordinary");
        Objects.requireNonNull(capture, "capture");
        if (ordinary.replication() != ReplicationMode.NONE) ordinary = ordinary.toBuilder().replication(ReplicationMode.NONE).build();
        Objects.requireNonNull(watermarks, "watermarks");
        if (chunkSize < 1) throw new IllegalArgumentException("chunkSize must be at least 1: " + chunkSize);
        if (workersPerTable < 1) throw new IllegalArgumentException("workersPerTable must be at least 1: " + workersPerTable);
        if (parallelTables < 1) throw new IllegalArgumentException("parallelTables must be at least 1: " + parallelTables);
        if (resumeState != null) ProgressState.decode(resumeState); // refuse a bad state here, not on the stream
        if (watermarks == WatermarkMode.SIGNAL_TABLE && signalTable == null) {
            throw new IllegalArgumentException("SIGNAL_TABLE watermarks need a signal table");
        }
    }

    /**
     * Defaults: chunks of {@value #DEFAULT_CHUNK_SIZE}, {@link WatermarkMode#AUTO}, no signal
     * table, one worker, one table at a time, no signals from logical messages, every table captured.
     *
     * @param ordinary the database, as for the stream (the replication parameter is replaced)
     * @return the options
     */
    public static IncrementalOptions of(ConnectionConfig ordinary) {
        return new IncrementalOptions(ordinary, DEFAULT_CHUNK_SIZE, WatermarkMode.AUTO, null, 1, 1, null, false, CaptureScope.EVERYTHING);
    }

    /**
     * A copy with another value.
     *
     * @param n rows per chunk
     * @return the copy
     */
    public IncrementalOptions withChunkSize(int n) {
        return new IncrementalOptions(ordinary, n, watermarks, signalTable, workersPerTable, parallelTables, resumeState, acceptMessageSignals, capture);
    }

    /**
     * A copy with another value.
     *
     * @param m the watermark mode
     * @return the copy
     */
    public IncrementalOptions withWatermarks(WatermarkMode m) {
        return new IncrementalOptions(ordinary, chunkSize, m, signalTable, workersPerTable, parallelTables, resumeState, acceptMessageSignals, capture);
    }

    /**
     * A copy with another value.
     *
     * @param table {@code schema.table} of a signal table, or null
     * @return the copy
     */
    public IncrementalOptions withSignalTable(String table) {
        return new IncrementalOptions(ordinary, chunkSize, watermarks, table, workersPerTable, parallelTables, resumeState, acceptMessageSignals, capture);
    }

    /**
     * A copy with another value.
     *
     * @param n key ranges per table
     * @return the copy
     */
    public IncrementalOptions withWorkersPerTable(int n) {
        return new IncrementalOptions(ordinary, chunkSize, watermarks, signalTable, n, parallelTables, resumeState, acceptMessageSignals, capture);
    }

    /**
     * A copy with another value.
     *
     * @param n tables at once
     * @return the copy
     */
    public IncrementalOptions withParallelTables(int n) {
        return new IncrementalOptions(ordinary, chunkSize, watermarks, signalTable, workersPerTable, n, resumeState, acceptMessageSignals, capture);
    }

    /**
     * A copy with another value.
     *
     * @param state a saved {@link IncrementalSnapshots#state()}, or null
     * @return the copy
     */
    public IncrementalOptions withResumeState(String state) {
        return new IncrementalOptions(ordinary, chunkSize, watermarks, signalTable, workersPerTable, parallelTables, state, acceptMessageSignals, capture);
    }

    /**
     * A copy with another value.
     *
     * @param accept whether {@code pgrepl} logical messages are acted on as signals (see the record's javadoc: grant
     *               {@code pg_logical_emit_message} only to the roles that may signal first)
     * @return the copy
     */
    public IncrementalOptions withAcceptMessageSignals(boolean accept) {
        return new IncrementalOptions(ordinary, chunkSize, watermarks, signalTable, workersPerTable, parallelTables, resumeState, accept, capture);
    }

    /**
     * A copy with another value.
     *
     * @param scope what the application captures; a signal or call for anything else is refused unread
     * @return the copy
     */
    public IncrementalOptions withCapture(CaptureScope scope) {
        return new IncrementalOptions(ordinary, chunkSize, watermarks, signalTable, workersPerTable, parallelTables, resumeState,
                acceptMessageSignals, scope);
    }

    @Override
    public String toString() {
        // ordinary's own toString keeps its secrets out
        return "IncrementalOptions[ordinary=" + ordinary + ", chunkSize=" + chunkSize + ", watermarks=" + watermarks
                + ", signalTable=" + signalTable + ", workersPerTable=" + workersPerTable + ", parallelTables=" + parallelTables
                + ", resumeState=" + (resumeState == null ? "none" : "given") + ", acceptMessageSignals=" + acceptMessageSignals
                + ", capture=" + (capture == CaptureScope.EVERYTHING ? "everything" : "scoped") + "]";
    }
}
