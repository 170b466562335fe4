package io.pgrepl.flink.internal;

import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Reader to enumerator: the stream split stopped at its position for tables to be read again
 * ({@link StreamSplit#suspended()}). Sent again after a restore until acknowledged
 * ({@link SplitsAckEvent} with the stream split's id): the enumerator acts on it only once a
 * completed checkpoint of its own holds it, so that no restore brings back a stream that had
 * already stopped while the tables are being read.
 *
 * @param split the stream split at the position it stopped, with what it asks for
 */
public record StreamSuspendedEvent(StreamSplit split) implements SourceEvent {
    private static final long serialVersionUID = 1L;
}
