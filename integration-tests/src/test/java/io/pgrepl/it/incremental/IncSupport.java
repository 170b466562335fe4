package io.pgrepl.it.incremental;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.it.snapshot.SnapshotSupport;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** Blocking helpers for the incremental snapshot tests (test thread only). */
final class IncSupport {
    private IncSupport() {}

    static void createSlot(PgConnection repl, String slot) throws Exception {
        await(repl.createReplicationSlot(CreateSlotOptions.logical(slot, "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
    }

    static long confirmedFlush(PgConnection sql, String slot) throws Exception {
        String v = await(sql.query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                .singleRow().get(0);
        return v == null ? 0 : Lsn.parse(v);
    }

    static void waitUntil(String what, Duration timeout, BooleanSupplier cond) throws InterruptedException {
        SnapshotSupport.waitUntil(cond, timeout, what);
    }

    /** The table as the server has it now: id to {@code v|n}, the way {@link Rebuild} keeps it. */
    static Map<String, String> source(PgConnection sql, String table) throws Exception {
        Map<String, String> m = new HashMap<>();
        for (io.pgrepl.client.Row r : await(sql.query("SELECT id, v, n FROM " + table)).rows()) {
            m.put(r.get(0), (r.isNull(1) ? "\\N" : r.get(1)) + "|" + (r.isNull(2) ? "\\N" : r.get(2)));
        }
        return m;
    }
}
