package io.pgrepl.client.stream;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.codec.Lsn;
import java.time.Duration;

/**
 * START_REPLICATION [SLOT s] PHYSICAL X/X [TIMELINE t] and the stream's behaviour.
 *
 * @param slotName       a physical slot, or null for none
 * @param startLsn       where to start; the server expects a WAL page/segment-aligned position it still has
 * @param timeline       0: the server's current timeline; otherwise TIMELINE t is sent
 * @param statusInterval how often a status update goes out unasked
 * @param receiveTimeout null: none; otherwise the stream fails when nothing arrives for this long
 */
public record PhysicalReplicationOptions(String slotName, long startLsn, long timeline, Duration statusInterval,
                                         Duration receiveTimeout) {
    /**
     * Checks the slot name and timeline; a null status interval means 10 s.
     *
     * @param slotName       a physical slot, or null for none
     * @param startLsn       where to start
     * @param timeline       0: the server's current timeline; otherwise TIMELINE t is sent
     * @param statusInterval how often a status update goes out unasked; null: 10 s
     * @param receiveTimeout null: none; otherwise the stream fails when nothing arrives for this long
     * @throws IllegalArgumentException for an invalid slot name
     * @throws PgClientException (INVALID_ARGUMENT) for a timeline outside 0 to 2^32-1
     */
    public PhysicalReplicationOptions {
        if (slotName != null) Identifiers.requireSlotName(slotName);
        if (timeline < 0 || timeline > 0xFFFFFFFFL) {
            throw new PgClientException(PgClientException.Kind.INVALID_ARGUMENT, "timeline out of range: " + timeline);
        }
        if (statusInterval == null) statusInterval = Duration.ofSeconds(10);
    }

    /**
     * Options on the current timeline with a 10 s status interval and no receive timeout.
     *
     * @param slotName a physical slot, or null for none
     * @param startLsn where to start
     * @return the options
     */
    public static PhysicalReplicationOptions of(String slotName, long startLsn) {
        return new PhysicalReplicationOptions(slotName, startLsn, 0, Duration.ofSeconds(10), null);
    }

    /** {@return the START_REPLICATION command} */
    public String startCommand() {
        StringBuilder sb = new StringBuilder("START_REPLICATION ");
        if (slotName != null) sb.append("SLOT ").append(slotName).append(' ');
        sb.append("PHYSICAL ").append(Lsn.format(startLsn));
        if (timeline != 0) sb.append(" TIMELINE ").append(timeline);
        return sb.toString();
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "PhysicalReplicationOptions[slotName=" + slotName + ", startLsn=" + Lsn.format(startLsn)
                + ", timeline=" + timeline + ", statusInterval=" + statusInterval + ", receiveTimeout=" + receiveTimeout + "]";
    }
}
