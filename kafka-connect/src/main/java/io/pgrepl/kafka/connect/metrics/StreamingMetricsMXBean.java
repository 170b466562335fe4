package io.pgrepl.kafka.connect.metrics;

import java.util.Map;

/**
 * The {@code context=streaming} bean: Debezium's {@code StreamingChangeEventSourceMetricsMXBean}
 * attribute for attribute and operation for operation (MetricsContractTest holds them side by side).
 */
public interface StreamingMetricsMXBean extends EventMetricsMXBean {
    /** {@return whether the replication stream is up} */
    boolean isConnected();

    /** {@return the last event's position: {@code lsn} (and {@code xmin} when the source block has one), as decimal strings} */
    Map<String, String> getSourceEventPosition();

    /** {@return milliseconds between the last event's commit ({@code source.ts_us}) and its hand-over; -1 before the first} */
    long getMilliSecondsBehindSource();

    /** {@return transactions seen (a change of {@code source.txId} from one event to the next)} */
    long getNumberOfCommittedTransactions();

    /** {@return the last event's {@code source.txId}, or null} */
    String getLastTransactionId();

    /** Forgets the lag figures. */
    void resetLagBehindSource();

    /** {@return -1: skip.messages.without.change is always false (as Debezium reports it then)} */
    long getNumberOfUnchangedEventsSkipped();

    /** {@return the smallest lag seen, or null before the first event} */
    Long getMilliSecondsBehindSourceMinValue();

    /** {@return the largest lag seen, or null before the first event} */
    Long getMilliSecondsBehindSourceMaxValue();

    /** {@return the mean lag, or null before the first event} */
    Double getMilliSecondsBehindSourceAverageValue();

    /** {@return the median lag of the latest 4096 events, or null before the first} */
    Double getMilliSecondsBehindSourceP50();

    /** {@return the 95th percentile, as {@link #getMilliSecondsBehindSourceP50}} */
    Double getMilliSecondsBehindSourceP95();

    /** {@return the 99th percentile, as {@link #getMilliSecondsBehindSourceP50}} */
    Double getMilliSecondsBehindSourceP99();

    /** {@return creates per table, {@code schema.table}; empty unless advanced.metrics.enable (as Debezium)} */
    Map<String, Long> getNumberOfCreateEventsSeen();

    /** {@return deletes per table} */
    Map<String, Long> getNumberOfDeleteEventsSeen();

    /** {@return updates per table} */
    Map<String, Long> getNumberOfUpdateEventsSeen();

    /** {@return truncates per table} */
    Map<String, Long> getNumberOfTruncateEventsSeen();

    /** Stops counting per table. */
    void pause();

    /** Counts per table again. */
    void resume();
}
