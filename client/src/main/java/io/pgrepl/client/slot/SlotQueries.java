package io.pgrepl.client.slot;

import io.pgrepl.client.Row;
import io.pgrepl.codec.Lsn;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Collection;
import java.util.regex.Pattern;

/**
 * The monitor's one query per poll, written for the server's major (10-18): every column exists on
 * every major (NULL where the server has no such view or column), so one reader serves them all.
 */
final class SlotQueries {
    /** What the server accepts as a slot name; anything else could not name a slot, so it is refused, not quoted. */
    private static final Pattern SLOT_NAME = Pattern.compile("[a-z0-9_]{1,63}");

    private SlotQueries() {}

    static void checkSlotName(String name) {
        if (name == null || !SLOT_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("not a replication slot name (lower-case letters, digits, _; at most 63): "
                    + (name == null ? "null" : "\"" + name.replaceAll("[^\\x20-\\x7e]", "?") + "\""));
        }
    }

    /**
     * @param major the server's major version
     * @param slots the slots to read; empty for all
     */
    static String sql(int major, Collection<String> slots) {
        StringBuilder q = new StringBuilder(1600);
        // pg_current_wal_lsn() raises on a standby; CASE evaluates only the branch taken (both are volatile).
        q.append("WITH w AS (SELECT pg_is_in_recovery() AS rec, CASE WHEN pg_is_in_recovery()"
                + " THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END AS cur)\n");
        q.append("SELECT s.slot_name, s.plugin, s.slot_type, s.database, s.temporary, s.active, s.active_pid,"
                + " host(r.client_addr) AS client_addr, w.rec, w.cur, s.restart_lsn, s.confirmed_flush_lsn,"
                + " (w.cur - s.restart_lsn)::bigint AS retained,"
                + " (w.cur - s.confirmed_flush_lsn)::bigint AS lag_bytes,"
                + " extract(epoch FROM r.replay_lag) AS lag_seconds,"
                + " extract(epoch FROM now()) AS polled_at");
        q.append(major >= 13 ? ", s.wal_status, s.safe_wal_size" : ", NULL AS wal_status, NULL AS safe_wal_size");
        q.append(major >= 13
                ? ", (SELECT setting::bigint FROM pg_settings WHERE name = 'max_slot_wal_keep_size') AS keep_mb"
                : ", NULL AS keep_mb");
        q.append(major >= 16 ? ", s.conflicting" : ", NULL AS conflicting");
        q.append(major >= 17
                ? ", s.invalidation_reason, extract(epoch FROM s.inactive_since) AS inactive_since,"
                        + " extract(epoch FROM now() - s.inactive_since) AS inactive_seconds"
                : ", NULL AS invalidation_reason, NULL AS inactive_since, NULL AS inactive_seconds");
        q.append(major >= 18
                ? ", (SELECT (setting::numeric * CASE unit WHEN 'min' THEN 60 WHEN 'ms' THEN 0.001 ELSE 1 END)::bigint"
                        + " FROM pg_settings WHERE name = 'idle_replication_slot_timeout') AS idle_timeout"
                : ", NULL AS idle_timeout");
        q.append(major >= 14
                ? ", st.spill_txns, st.spill_count, st.spill_bytes, st.stream_txns, st.stream_count, st.stream_bytes,"
                        + " st.total_txns, st.total_bytes"
                : ", NULL AS spill_txns");
        q.append("\nFROM pg_replication_slots s CROSS JOIN w LEFT JOIN pg_stat_replication r ON r.pid = s.active_pid");
        if (major >= 14) q.append(" LEFT JOIN pg_stat_replication_slots st ON st.slot_name = s.slot_name");
        if (!slots.isEmpty()) {
            q.append("\nWHERE s.slot_name IN (");
            int i = 0;
            for (String name : slots) {
                checkSlotName(name);
                q.append(i++ == 0 ? "'" : ", '").append(name).append('\'');
            }
            q.append(')');
        }
        q.append("\nORDER BY s.slot_name");
        return q.toString();
    }

    static SlotHealth read(Row r, int major) {
        String spillTxns = r.get("spill_txns");
        SlotHealth.SpillStats spill = spillTxns == null ? null : new SlotHealth.SpillStats(Long.parseLong(spillTxns),
                longOr0(r, "spill_count"), longOr0(r, "spill_bytes"), longOr0(r, "stream_txns"),
                longOr0(r, "stream_count"), longOr0(r, "stream_bytes"), longOr0(r, "total_txns"),
                longOr0(r, "total_bytes"));
        Long keepMb = longOrNull(r, "keep_mb");
        Long safe = longOrNull(r, "safe_wal_size");
        return new SlotHealth(instant(r.get("polled_at")), major, "t".equals(r.get("rec")), r.get("slot_name"),
                r.get("plugin"), r.get("slot_type"), r.get("database"), "t".equals(r.get("temporary")),
                "t".equals(r.get("active")), intOrNull(r, "active_pid"), r.get("client_addr"), lsn(r, "cur"),
                lsn(r, "restart_lsn"), lsn(r, "confirmed_flush_lsn"), longOrNull(r, "retained"),
                longOrNull(r, "lag_bytes"), doubleOrNull(r, "lag_seconds"), r.get("wal_status"), safe,
                r.get("conflicting") == null ? null : "t".equals(r.get("conflicting")), r.get("invalidation_reason"),
                instant(r.get("inactive_since")), doubleOrNull(r, "inactive_seconds"), spill,
                keepMb == null ? null : keepMb < 0 ? -1L : keepMb * 1024 * 1024, longOrNull(r, "idle_timeout"));
    }

    private static long lsn(Row r, String column) {
        String v = r.get(column);
        return v == null ? Lsn.INVALID : Lsn.parse(v);
    }

    private static Long longOrNull(Row r, String column) {
        String v = r.get(column);
        return v == null ? null : Long.valueOf(v);
    }

    private static long longOr0(Row r, String column) {
        String v = r.get(column);
        return v == null ? 0 : Long.parseLong(v);
    }

    private static Integer intOrNull(Row r, String column) {
        String v = r.get(column);
        return v == null ? null : Integer.valueOf(v);
    }

    private static Double doubleOrNull(Row r, String column) {
        String v = r.get(column);
        return v == null ? null : Double.valueOf(v);
    }

    /** Epoch seconds with a fraction, as extract(epoch ...) prints them. */
    private static Instant instant(String epoch) {
        if (epoch == null) return null;
        BigDecimal s = new BigDecimal(epoch);
        long seconds = s.longValue();
        long nanos = s.subtract(BigDecimal.valueOf(seconds)).movePointRight(9).longValue();
        return Instant.ofEpochSecond(seconds, nanos);
    }
}
