package io.pgrepl.it.slot;

import static io.pgrepl.it.slot.SlotSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.slot.SlotHealth;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import java.util.List;

/**
 * The monitor's query is written per major (10-18): on every major of the matrix it runs, and each
 * column is there exactly from the major that has it, with the positions the server itself reports.
 */
class SlotMonitorMatrixTest {

    @PgMatrixTest
    void everyMajorAnswersWithItsOwnColumns(PgServer s) throws Exception {
        s.dropReplicationSlotIfExists("mx_slot");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('mx_slot', 'pgoutput')");
        try (SlotMonitor monitor = SlotMonitor.builder(SlotGuardTest.monitorConfig(s)).slot("mx_slot").build();
             PgConnection sql = SlotSupport.sql(s)) {
            List<SlotHealth> polled = await(monitor.pollNow());
            String restart = SlotSupport.value(sql, "SELECT restart_lsn FROM pg_replication_slots WHERE slot_name = 'mx_slot'");
            assertEquals(1, polled.size());
            SlotHealth h = polled.get(0);
            int major = s.majorVersion();
            assertEquals(major, h.serverMajor());
            assertEquals("mx_slot", h.slotName());
            assertEquals("pgoutput", h.plugin());
            assertEquals("logical", h.slotType());
            assertEquals("postgres", h.database());
            assertFalse(h.active());
            assertFalse(h.inRecovery());
            assertEquals(Lsn.parse(restart), h.restartLsn());
            assertEquals(h.currentLsn() - h.restartLsn(), h.retainedWal().longValue());
            assertNotNull(h.lagBytes());
            assertNull(h.lagSeconds(), "no walsender");
            assertEquals(major >= 13, h.walStatus() != null, "wal_status from 13");
            assertEquals(major >= 13, h.maxSlotWalKeepSize() != null, "max_slot_wal_keep_size from 13");
            if (major >= 13) assertEquals("reserved", h.walStatus());
            assertNull(h.safeWalSize(), "max_slot_wal_keep_size is -1 by default");
            assertEquals(major >= 14, h.spill() != null, "pg_stat_replication_slots from 14");
            assertEquals(major >= 16, h.conflicting() != null, "conflicting from 16");
            assertEquals(major >= 17, h.inactiveSince() != null, "inactive_since from 17");
            assertEquals(major >= 18, h.idleTimeoutSeconds() != null, "idle_replication_slot_timeout from 18");
            if (major >= 17) assertTrue(h.inactiveSeconds() >= 0);
            assertFalse(h.invalidated());
        }
        s.dropReplicationSlot("mx_slot");
    }
}
