package io.pgrepl.flink;

import java.io.Serializable;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.util.Collector;

/**
 * Turns the source's changes into the stream's elements: {@link PgRowDeserializer} (typed
 * {@link PgRow}s), {@link DebeziumJsonDeserializer} (Debezium's JSON envelope), or the table
 * source's RowData. Runs on the reader's task thread, one change at a time, in order; whatever it
 * collects for one change is emitted between the same two checkpoints.
 *
 * @param <T> the element type
 */
public interface PgreplDeserializer<T> extends Serializable, ResultTypeQueryable<T> {
    /**
     * Called once per reader before the first change.
     *
     * @throws Exception if it cannot start
     */
    default void open() throws Exception {}

    /**
     * Collects the elements of one change (none, one, or more: an update may become two rows).
     *
     * @param change the change
     * @param out    where the elements go
     * @throws Exception to fail the reader (the job restarts from its last checkpoint)
     */
    void deserialize(PgChange change, Collector<T> out) throws Exception;
}
