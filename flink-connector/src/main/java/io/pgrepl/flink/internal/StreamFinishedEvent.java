package io.pgrepl.flink.internal;

import org.apache.flink.api.connector.source.SourceEvent;

/** Reader to enumerator: the bounded stream (startup mode snapshot) passed its stop position and ended. */
public record StreamFinishedEvent() implements SourceEvent {
    private static final long serialVersionUID = 1L;
}
