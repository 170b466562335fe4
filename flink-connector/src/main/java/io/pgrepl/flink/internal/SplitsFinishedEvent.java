package io.pgrepl.flink.internal;

import java.util.List;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Reader to enumerator: these snapshot splits were emitted whole, with their pieces. Sent again
 * after a restore until acknowledged ({@link SplitsAckEvent}).
 *
 * @param splits the finished splits
 */
public record SplitsFinishedEvent(List<SnapshotSplit> splits) implements SourceEvent {
    private static final long serialVersionUID = 1L;
}
