package io.pgrepl.kafka.connect.metrics;

/**
 * What Debezium's snapshot and streaming beans share (its {@code ChangeEventSourceMetricsMXBean}:
 * the event counters, the queue, the captured tables), under the same attribute names and types, so
 * that a dashboard or an alert written for Debezium's PostgreSQL connector reads pgrepl's unchanged.
 */
public interface EventMetricsMXBean {
    /** {@return a short description of the last event handed to Kafka Connect (its position and key), or null} */
    String getLastEvent();

    /** {@return milliseconds since the last event was handed to Kafka Connect; -1 before the first} */
    long getMilliSecondsSinceLastEvent();

    /** {@return the events handed to Kafka Connect (every operation, reads and truncates included)} */
    long getTotalNumberOfEventsSeen();

    /** {@return the events with {@code op=c}} */
    long getTotalNumberOfCreateEventsSeen();

    /** {@return the events with {@code op=u}} */
    long getTotalNumberOfUpdateEventsSeen();

    /** {@return the events with {@code op=d}} */
    long getTotalNumberOfDeleteEventsSeen();

    /** {@return changes left out by the include/exclude lists; always 0: pgrepl does not count them (see docs/kafka-connect.md)} */
    long getNumberOfEventsFiltered();

    /** {@return changes that could not be turned into events; always 0: pgrepl fails the task on such a change} */
    long getNumberOfErroneousEvents();

    /** {@return how many records the queue between reading and Kafka Connect's poll() holds at most} */
    int getQueueTotalCapacity();

    /** {@return how many more records that queue has room for now} */
    int getQueueRemainingCapacity();

    /** {@return the queue's bound in bytes; 0: pgrepl bounds it by records, as Debezium does by default} */
    long getMaxQueueSizeInBytes();

    /** {@return the queue's bytes; 0, as Debezium reports while max.queue.size.in.bytes is 0} */
    long getCurrentQueueSizeInBytes();

    /** {@return the captured tables, {@code schema.table}} */
    String[] getCapturedTables();

    /** Sets the counters back to their start. */
    void reset();
}
