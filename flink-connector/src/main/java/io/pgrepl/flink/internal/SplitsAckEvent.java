package io.pgrepl.flink.internal;

import java.util.List;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to reader: a completed checkpoint of the enumerator holds these finished splits, so
 * the reader may drop them from its own state.
 *
 * @param ids the split ids
 */
public record SplitsAckEvent(List<String> ids) implements SourceEvent {
    private static final long serialVersionUID = 1L;
}
