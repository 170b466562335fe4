package io.pgrepl.kafka.connect.metrics;

/**
 * The records built ahead of Kafka Connect's poll(): pgrepl's counterpart of Debezium's change
 * event queue (bounded by records, not bytes).
 */
public interface Queue {
    /** A queue that holds nothing: before the task has one. */
    Queue NONE = new Queue() {
        @Override public int capacity() { return 0; }
        @Override public int waiting() { return 0; }
    };

    /** {@return how many records it holds at most} */
    int capacity();

    /** {@return how many records wait in it now} */
    int waiting();
}
