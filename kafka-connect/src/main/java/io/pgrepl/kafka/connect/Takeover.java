package io.pgrepl.kafka.connect;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotSignal;
import io.pgrepl.codec.Lsn;
import io.pgrepl.kafka.connect.offsets.DebeziumOffsets;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.kafka.connect.snapshot.IncrementalSettings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task starting on offsets Debezium's connector wrote (the same connector name, so the same
 * Connect offsets): says at start what is taken over and what is not, and refuses what cannot be
 * honoured instead of skipping data. The start itself is {@link StartPlan}'s; what is read from the
 * offsets is {@link DebeziumOffsets}'.
 */
final class Takeover {
    private static final Logger log = LoggerFactory.getLogger(Takeover.class);

    private final PgreplConnectorConfig config;
    private final List<DebeziumOffsets.Collection> incremental;
    private final boolean streaming;

    private Takeover(PgreplConnectorConfig config, List<DebeziumOffsets.Collection> incremental, boolean streaming) {
        this.config = config;
        this.incremental = incremental;
        this.streaming = streaming;
    }

    /**
     * The takeover of {@code stored}, or null when they are not Debezium's (none, or pgrepl's own).
     *
     * @throws ConnectException when Debezium's incremental snapshots are in progress and this
     *                          connector is not configured to run incremental snapshots
     */
    static Takeover of(Map<String, Object> stored, PgreplConnectorConfig config) {
        if (stored == null || stored.isEmpty() || Position.pgrepl(stored)) return null;
        List<DebeziumOffsets.Collection> inc;
        try {
            inc = DebeziumOffsets.incremental(stored);
        } catch (IllegalArgumentException e) {
            throw new ConnectException("the stored offsets are Debezium's, but " + e.getMessage());
        }
        String copy = DebeziumOffsets.unfinishedSnapshot(stored);
        boolean streaming = DebeziumOffsets.streaming(stored);
        log.info("slot {}: the stored offsets are Debezium's ({}): {}", config.slotName(), describe(stored),
                copy != null ? "its " + copy.toLowerCase(java.util.Locale.ROOT) + " snapshot did not finish"
                        : streaming ? "streaming continues after the transaction ending at "
                                + Lsn.format(DebeziumOffsets.position(stored).endLsn())
                                + "; changes of the next transaction that Debezium had sent already are sent again"
                        : "they hold no position");
        if (!inc.isEmpty() && !IncrementalSettings.enabled(config)) {
            throw new ConnectException("the stored offsets are Debezium's and hold an incremental snapshot in progress ("
                    + names(inc) + "), which this connector could not finish: configure incremental snapshots here ("
                    + "signal.data.collection, as Debezium had it) so the tables are read again from their start, or let"
                    + " Debezium finish the snapshot before switching");
        }
        return new Takeover(config, inc, streaming);
    }

    /**
     * What must hold before anything is created: a slot of Debezium's own plugin, and the
     * publication Debezium streamed with (one created now publishes nothing the slot holds from
     * before its creation).
     */
    void check(PgConnection c) {
        ReplicationSetup.SlotInfo slot = ReplicationSetup.slot(c, config);
        if (slot != null && !("logical".equals(slot.slotType()) && "pgoutput".equals(slot.plugin()))) {
            throw new ConnectException("replication slot \"" + config.slotName() + "\" that Debezium used is "
                    + slot.slotType() + "/" + slot.plugin() + " (Debezium's plugin.name), and pgrepl streams pgoutput only."
                    + " Stop Debezium, create a pgoutput slot under another slot.name and start pgrepl on it with"
                    + " snapshot.mode=initial (a new copy), or switch Debezium to pgoutput first");
        }
        if (streaming && !ReplicationSetup.publicationExists(c, config)) {
            throw new ConnectException("publication \"" + config.publicationName() + "\" does not exist, but the stored"
                    + " offsets are Debezium's: its slot streamed another publication (Debezium's publication.name,"
                    + " dbz_publication unless set). Set publication.name to that one; a publication created now would"
                    + " not publish the changes the slot holds from before its creation");
        }
    }

    /** Debezium's incremental snapshots in progress are read again, each table from its start. */
    void resumeIncremental(IncrementalSnapshots engine) {
        for (DebeziumOffsets.Collection t : incremental) {
            log.warn("slot {}: Debezium's incremental snapshot of {} was in progress; it is read again from its start",
                    config.slotName(), t.id());
            Map<String, String> condition = new HashMap<>();
            if (t.condition() != null) condition.put(t.id(), t.condition());
            engine.signal(new SnapshotSignal(SnapshotSignal.Type.EXECUTE, List.of(t.id()), condition, "incremental",
                    "debezium-offsets", null, t.surrogateKey()), "Debezium's offsets");
        }
    }

    private static String names(List<DebeziumOffsets.Collection> inc) {
        return String.join(", ", inc.stream().map(DebeziumOffsets.Collection::id).toList());
    }

    /** Debezium's position keys as stored, for the log. */
    private static String describe(Map<String, Object> stored) {
        StringBuilder b = new StringBuilder();
        for (String k : new String[] {DebeziumOffsets.LSN_COMMIT, DebeziumOffsets.LSN_PROC, DebeziumOffsets.LSN}) {
            if (stored.get(k) instanceof Number n) b.append(b.length() == 0 ? "" : ", ").append(k).append('=').append(Lsn.format(n.longValue()));
        }
        Object s = stored.get(DebeziumOffsets.SNAPSHOT);
        if (s != null) b.append(b.length() == 0 ? "" : ", ").append("snapshot=").append(s);
        return b.length() == 0 ? "no position" : b.toString();
    }
}
