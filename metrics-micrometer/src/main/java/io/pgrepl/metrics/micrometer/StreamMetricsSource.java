package io.pgrepl.metrics.micrometer;

import io.netty.channel.EventLoop;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.StreamMetrics;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * What the meters read. A stream's own {@code metrics()} off the event loop is the snapshot of the
 * last status update (up to {@code statusInterval} old, and "time since last message" frozen at
 * that moment, which would hide a dead stream), so a read hops onto the event loop for a fresh one.
 * One scrape reads a dozen meters: a snapshot is reused for {@link #REUSE_NANOS}, so a scrape
 * costs one hop, not twelve. If the loop does not answer in time (shut down, or blocked by a
 * handler), the last status update's snapshot is used instead.
 *
 * <p>Across reconnects ({@code current} returns a new stream) the counters of finished streams are
 * carried, so counters never go down.
 */
final class StreamMetricsSource {
    static final long REUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long HOP_TIMEOUT_MILLIS = 250;

    private final Supplier<LogicalReplicationStream> current;
    private LogicalReplicationStream stream;
    private StreamMetrics streamLast;
    private long baseMessages;
    private long baseBytes;
    private long baseTransactions;
    private long baseStatusUpdates;
    private StreamMetrics combined;
    private long combinedAtNanos;

    StreamMetricsSource(Supplier<LogicalReplicationStream> current) {
        this.current = current;
    }

    /** Counters summed over every stream seen; positions, lag and age of the current one. Null before any. */
    synchronized StreamMetrics get() {
        long now = System.nanoTime();
        if (combined != null && now - combinedAtNanos < REUSE_NANOS) return combined;
        LogicalReplicationStream s = current.get();
        if (s != stream) {
            if (stream != null) {
                StreamMetrics end = fresh(stream);
                if (end == null) end = streamLast;
                if (end != null) {
                    baseMessages += end.messages();
                    baseBytes += end.bytes();
                    baseTransactions += end.transactions();
                    baseStatusUpdates += end.statusUpdatesSent();
                }
            }
            stream = s;
            streamLast = null;
        }
        StreamMetrics m = s == null ? null : fresh(s);
        if (m != null) {
            streamLast = m;
            combined = new StreamMetrics(baseMessages + m.messages(), baseBytes + m.bytes(),
                    baseTransactions + m.transactions(), m.receivedLsn(), m.serverWalEnd(), m.acknowledgedLsn(),
                    m.flushedLsn(), m.lagBytes(), m.millisSinceLastMessage(), baseStatusUpdates + m.statusUpdatesSent());
        } else if (combined != null) {
            // Between connections: finished streams' counters, the last known positions.
            combined = new StreamMetrics(baseMessages, baseBytes, baseTransactions, combined.receivedLsn(),
                    combined.serverWalEnd(), combined.acknowledgedLsn(), combined.flushedLsn(), combined.lagBytes(),
                    combined.millisSinceLastMessage(), baseStatusUpdates);
        }
        combinedAtNanos = now;
        return combined;
    }

    private static StreamMetrics fresh(LogicalReplicationStream s) {
        EventLoop loop = s.eventLoop();
        if (loop.inEventLoop()) return s.metrics();
        try {
            return loop.submit(s::metrics).get(HOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException | TimeoutException | ExecutionException e) {
            return s.metrics();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return s.metrics();
        }
    }
}
