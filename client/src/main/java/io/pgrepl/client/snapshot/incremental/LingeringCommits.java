package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgConnection;
import java.util.concurrent.CompletionStage;

/**
 * The transactions that have committed yet still count as running in the server's snapshots,
 * because their backends wait for a synchronous standby (they have written their commit, and the
 * stream may have delivered it). Asked once a table's keys are tracked and before its first chunk:
 * one of them whose commit the stream delivered before the tracking changed keys no touch log
 * holds, and a chunk whose snapshot misses it must be read again ({@link
 * TableRun#missesEarlierCommit}). The engine's window of recent commits covers the common case and
 * the moment before a commit leaves the proc array; this covers a commit that lingers while more
 * commits than that window holds are delivered before the table starts (sessions that do not wait
 * for the standby, while one that does is stuck). One whose commit comes after the tracking started
 * is counted too, which costs only a re-read while it waits.
 *
 * <p>The commit log cannot tell them apart ({@code pg_xact_status} says "in progress" while the
 * proc array does), so the server's activity view does: a role that may not see other roles'
 * wait events (neither the same role nor {@code pg_read_all_stats}) gets none, and only the window
 * of recent commits then.
 */
final class LingeringCommits {
    static final String QUERY = "SELECT backend_xid::text FROM pg_catalog.pg_stat_activity"
            + " WHERE wait_event = 'SyncRep' AND backend_xid IS NOT NULL AND datname = pg_catalog.current_database()";

    private LingeringCommits() {}

    /** {@return the 32-bit xids of the transactions whose commits wait for a synchronous standby} */
    static CompletionStage<long[]> ask(PgConnection c) {
        return c.query(QUERY).thenApply(r -> r.rows().stream().mapToLong(row -> Long.parseLong(row.get(0))).toArray());
    }
}
