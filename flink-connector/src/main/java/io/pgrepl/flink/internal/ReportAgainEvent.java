package io.pgrepl.flink.internal;

import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to reader, when a reader registers again after a restart: send again every report
 * not yet acknowledged (finished splits, a stopped stream).
 *
 * <p>A restarted reader reports what its restored state holds while Flink adds its splits, which
 * Flink 2.3's SourceOperator does before it registers the reader; the enumerator drops what the
 * reader's earlier attempt had reported when it registers (a split in progress at the checkpoint
 * is read on and its old report is void), so those reports arrive too early to count. The answer
 * to this event comes after the registration, from the restored state, and counts.
 */
public record ReportAgainEvent() implements SourceEvent {
    private static final long serialVersionUID = 1L;
}
