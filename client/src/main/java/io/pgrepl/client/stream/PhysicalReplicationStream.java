package io.pgrepl.client.stream;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.replication.WalSenderCommands;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.replication.PrimaryKeepalive;
import io.pgrepl.codec.replication.XLogData;
import java.time.Duration;
import java.util.Optional;

/**
 * START_REPLICATION ... PHYSICAL: raw WAL as buffer slices with their positions. Status updates
 * report write = end of the WAL received, flush = apply = what the application acknowledged
 * (for a physical slot the flush position becomes its restart_lsn). Same threading rules as
 * {@link LogicalReplicationStream}.
 *
 * <p>At the end of a non-latest timeline the server sends CopyDone; the stream answers with its
 * own, reads the (next timeline, switch LSN) row and completes normally with
 * {@link #timelineSwitch()} set.
 */
public final class PhysicalReplicationStream extends CopyBothStream {
    private final PhysicalStreamHandler handler;
    private long received;
    private long acknowledged;
    private long sentFlush;
    private boolean frozen;
    private volatile long acknowledgedView;

    private PhysicalReplicationStream(PgConnection connection, PhysicalReplicationOptions options, PhysicalStreamHandler handler) {
        super(connection, options.startCommand(), options.statusInterval(), options.receiveTimeout(),
                Duration.ZERO); // WAL comes in XLogData of up to 128 kB: reads are large without coalescing
        this.handler = handler;
    }

    /**
     * Queues START_REPLICATION ... PHYSICAL and returns the stream at once; {@link #started()} completes on CopyBothResponse.
     *
     * @param connection a connection opened with {@code replication=true} (or database), idle
     * @param options    slot, start position and timeline
     * @param handler    receives the WAL on the connection's event loop
     * @return the stream, not yet started
     * @throws io.pgrepl.client.PgClientException if the connection is not a walsender
     */
    public static PhysicalReplicationStream start(PgConnection connection, PhysicalReplicationOptions options,
                                                  PhysicalStreamHandler handler) {
        WalSenderCommands.require(connection.config().replication(), "START_REPLICATION ... PHYSICAL", false);
        PhysicalReplicationStream s = new PhysicalReplicationStream(connection, options, handler);
        s.submit(() -> handler.onStarted(s));
        return s;
    }

    /**
     * WAL up to {@code lsn} is durably stored by the application (any thread).
     *
     * @param lsn the end of the WAL stored durably
     */
    public void acknowledge(long lsn) {
        runOnLoop(() -> {
            acknowledged = Lsn.max(acknowledged, lsn);
            acknowledgedView = acknowledged;
        });
    }

    /** {@return the highest position acknowledged by the application (any thread)} */
    public long acknowledgedLsn() {
        return acknowledgedView;
    }

    /**
     * Set after a normal completion caused by the end of the timeline.
     *
     * @return the next timeline and where it starts, or empty
     */
    public Optional<TimelineSwitch> timelineSwitch() {
        return nextTimeline < 0 ? Optional.empty() : Optional.of(new TimelineSwitch(nextTimeline, switchLsn));
    }

    @Override
    void onXLogData(XLogData x) {
        long end = x.walStart() + x.dataLength();
        received = Lsn.max(received, end);
        try {
            handler.onWal(x);
        } catch (RuntimeException e) {
            failFromHandler(e);
        }
    }

    @Override
    void onKeepalive(PrimaryKeepalive k) {
        try {
            handler.onKeepalive(k);
        } catch (RuntimeException e) {
            failFromHandler(e);
        }
    }

    @Override
    long nextFlushPosition() {
        if (!frozen) sentFlush = Lsn.max(sentFlush, acknowledged);
        return sentFlush;
    }

    @Override
    long writePosition(long flush) {
        return Lsn.max(received, flush);
    }

    @Override
    void onStopDecided() {
        frozen = true;
    }
}
