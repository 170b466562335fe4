package io.pgrepl.kafka.connect.metrics;

import java.util.Map;

/**
 * The {@code context=snapshot} bean: Debezium's {@code SnapshotChangeEventSourceMetricsMXBean}
 * attribute for attribute (MetricsContractTest holds them side by side). Its event counters count
 * the initial snapshot's reads; an incremental snapshot's progress is reported here too, its reads
 * are counted by the streaming bean, as Debezium counts them.
 */
public interface SnapshotMetricsMXBean extends EventMetricsMXBean {
    /** {@return how many tables the snapshot reads} */
    int getTotalTableCount();

    /** {@return how many of them are not read to their end yet} */
    int getRemainingTableCount();

    /** {@return whether the snapshot is copying} */
    boolean getSnapshotRunning();

    /** {@return whether an incremental snapshot is paused (a pause-snapshot signal)} */
    boolean getSnapshotPaused();

    /** {@return whether the snapshot ran to its end in this task} */
    boolean getSnapshotCompleted();

    /** {@return whether the snapshot stopped before its end in this task} */
    boolean getSnapshotAborted();

    /** {@return whether this task started without a snapshot (snapshot.mode no_data or never, or one done before)} */
    boolean getSnapshotSkipped();

    /** {@return seconds from the snapshot's start to its end, or to now while it runs; 0 before} */
    long getSnapshotDurationInSeconds();

    /** {@return seconds the snapshot was paused} */
    long getSnapshotPausedDurationInSeconds();

    /** {@return rows read per table, {@code schema.table}} */
    Map<String, Long> getRowsScanned();

    /** {@return null: an incremental snapshot's chunks are named in its notifications only} */
    String getChunkId();

    /** {@return null: the chunk's keys are in the IN_PROGRESS notifications ({@code last_processed_key})} */
    String getChunkFrom();

    /** {@return null, as {@link #getChunkFrom}} */
    String getChunkTo();

    /** {@return null, as {@link #getChunkFrom}} */
    String getTableFrom();

    /** {@return null: the table's largest key is the notifications' {@code maximum_key}} */
    String getTableTo();

    /** {@return chunks per table of a chunked initial snapshot; empty: pgrepl copies each table whole} */
    Map<String, Long> getTableChunkCounts();

    /** {@return chunks read per table of a chunked initial snapshot; empty, as {@link #getTableChunkCounts}} */
    Map<String, Long> getTableChunksCompletedCounts();
}
