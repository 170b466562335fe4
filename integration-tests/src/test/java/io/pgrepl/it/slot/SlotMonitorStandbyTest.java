package io.pgrepl.it.slot;

import static io.pgrepl.it.slot.SlotSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.slot.SlotHealth;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * On a hot standby pg_current_wal_lsn() raises: the monitor measures from pg_last_wal_replay_lsn()
 * there, and says it is in recovery. The newest major of the matrix (a standby needs 12+).
 */
class SlotMonitorStandbyTest {

    @Test
    void onAStandbyPositionsComeFromTheReplayLsn() throws Exception {
        int major = Collections.max(PgVersions.matrix());
        if (major < 12) return;
        try (PgServer primary = PgServer.builder().version(major).auth(AuthMethod.SCRAM_SHA_256).start();
             PgServer standby = primary.startStandby("mon_standby")) {
            primary.sql("postgres", "CREATE TABLE mon_t AS SELECT g FROM generate_series(1, 1000) g");
            standby.sql("postgres", "SELECT pg_create_physical_replication_slot('mon_local', true)");
            primary.sql("postgres", "INSERT INTO mon_t SELECT g FROM generate_series(1, 1000) g");
            try (SlotMonitor monitor = SlotMonitor.builder(SlotGuardTest.monitorConfig(standby)).slot("mon_local").build();
                 PgConnection sql = SlotSupport.sql(standby)) {
                SlotSupport.waitUntil("the insert replayed", () -> {
                    try {
                        return "2000".equals(SlotSupport.value(sql, "SELECT count(*) FROM mon_t"));
                    } catch (Exception e) {
                        return false; // the table is not replayed yet
                    }
                });
                String restart = SlotSupport.value(sql, "SELECT restart_lsn FROM pg_replication_slots WHERE slot_name = 'mon_local'");
                String replayBefore = SlotSupport.value(sql, "SELECT pg_last_wal_replay_lsn()");
                List<SlotHealth> polled = await(monitor.pollNow());
                String replayAfter = SlotSupport.value(sql, "SELECT pg_last_wal_replay_lsn()");
                SlotHealth h = polled.get(0);
                assertTrue(h.inRecovery());
                assertEquals("physical", h.slotType());
                assertTrue(Long.compareUnsigned(h.currentLsn(), Lsn.parse(replayBefore)) >= 0
                        && Long.compareUnsigned(h.currentLsn(), Lsn.parse(replayAfter)) <= 0, "replay LSN " + Lsn.format(h.currentLsn()));
                assertEquals(h.currentLsn() - Lsn.parse(restart), h.retainedWal().longValue());
                assertTrue(h.retainedWal() > 0, "the standby's slot retains the replayed insert");
            }
        }
    }
}
