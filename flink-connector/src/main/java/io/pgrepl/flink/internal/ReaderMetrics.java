package io.pgrepl.flink.internal;

import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.StreamMetrics;
import io.pgrepl.codec.PgTime;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * A reader's figures in Flink's metric system, under the group {@code pgrepl}: rows read by
 * snapshot splits, changes and transactions emitted from the stream, the lag of the last one
 * emitted ({@code commitLagMillis}: now minus its commit time), the bytes
 * the server's WAL is ahead of what was confirmed ({@code streamLagBytes}) and the WAL the slot
 * retains ({@code slotRetainedWalBytes}, polled every {@code slot.metrics.interval}).
 */
final class ReaderMetrics {
    private final Counter snapshotRows;
    private final Counter changes;
    private final Counter transactions;
    private volatile long lastCommitMicros;

    ReaderMetrics(MetricGroup parent, StreamLink link) {
        MetricGroup g = parent.addGroup("pgrepl");
        snapshotRows = g.counter("snapshotRowsEmitted");
        changes = g.counter("changesEmitted");
        transactions = g.counter("transactionsEmitted");
        g.gauge("commitLagMillis", () -> {
            long c = lastCommitMicros;
            return c == 0 ? 0L : Math.max(0L, (PgTime.nowMicros() - c) / 1000);
        });
        g.gauge("streamLagBytes", () -> {
            StreamFetch f = link.fetch();
            LogicalReplicationStream s = f == null ? null : f.stream();
            StreamMetrics m = s == null ? null : s.metrics();
            return m == null ? -1L : m.lagBytes();
        });
    }

    void snapshotRow() {
        snapshotRows.inc();
    }

    void change(long commitMicros) {
        changes.inc();
        lastCommitMicros = commitMicros;
    }

    void transaction(long commitMicros) {
        transactions.inc();
        lastCommitMicros = commitMicros;
    }
}
