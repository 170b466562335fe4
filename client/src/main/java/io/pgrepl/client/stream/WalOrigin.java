package io.pgrepl.client.stream;

import io.pgrepl.codec.Lsn;

/**
 * Which WAL history an acknowledged LSN belongs to: the cluster (the system identifier of
 * IDENTIFY_SYSTEM) and its timeline. LSNs compare only within one history. A promotion starts a
 * new timeline that shares the old one's WAL up to the switch point in its timeline history file;
 * beyond it the two differ, and a failover without {@code synchronized_standby_slots} can leave
 * the client having acknowledged old-timeline WAL past that point, which the new primary never
 * had while its own new transactions take the same LSNs. Another cluster's LSNs say nothing at all.
 *
 * @param systemId the cluster's system identifier
 * @param timeline the server's current timeline
 */
record WalOrigin(String systemId, long timeline) {

    /**
     * What of {@code acknowledged}, acknowledged on {@code from}'s WAL, may still serve as the
     * de-duplication floor on {@code to}'s: all of it on the same history; up to the switch point
     * where {@code from}'s timeline ended, on a later timeline of the same cluster; nothing (0:
     * the slot's own position decides) on another cluster, on an earlier timeline, or when the
     * history does not name the switch point. Never more than {@code acknowledged}: it errs
     * towards delivering again, never towards skipping.
     *
     * @param history the content of {@code to}'s timeline history file (TIMELINE_HISTORY), or null
     */
    static long carryOver(long acknowledged, WalOrigin from, WalOrigin to, String history) {
        if (from == null || from.equals(to)) return acknowledged;
        if (!from.systemId.equals(to.systemId) || to.timeline < from.timeline || history == null) return 0;
        long switchpoint = switchpoint(history, from.timeline);
        if (switchpoint < 0) return 0;
        return Long.compareUnsigned(acknowledged, switchpoint) <= 0 ? acknowledged : switchpoint;
    }

    /**
     * The LSN at which {@code timeline} ended in a timeline history file ("parentTLI, switchpoint,
     * reason" lines; '#' comments), or -1 when it is not named.
     */
    static long switchpoint(String history, long timeline) {
        for (String line : history.split("\n")) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) continue;
            String[] f = l.split("\\s+", 3);
            if (f.length < 2) continue;
            try {
                if (Long.parseLong(f[0]) == timeline) return Lsn.parse(f[1]);
            } catch (RuntimeException malformed) {
                return -1;
            }
        }
        return -1;
    }
}
