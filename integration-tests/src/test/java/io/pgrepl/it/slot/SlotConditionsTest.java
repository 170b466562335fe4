package io.pgrepl.it.slot;

import static io.pgrepl.it.slot.SlotSupport.FAST;
import static io.pgrepl.it.slot.SlotSupport.await;
import static io.pgrepl.it.slot.SlotSupport.failure;
import static io.pgrepl.it.slot.SlotSupport.options;
import static io.pgrepl.it.slot.SlotSupport.replication;
import static io.pgrepl.it.slot.SlotSupport.setUp;
import static io.pgrepl.it.slot.SlotSupport.value;
import static io.pgrepl.it.slot.SlotSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.PgException;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.ReplicationPublicationException;
import io.pgrepl.client.stream.ReplicationSlotException;
import io.pgrepl.client.stream.ReplicationSlotException.Condition;
import io.pgrepl.it.fault.FaultMajors;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Slot and publication conditions on real servers (newest and oldest major; invalidation from
 * 13, where max_slot_wal_keep_size appeared): each ends a stream with a typed error, retried
 * only where the policy says so, never a silent hang.
 */
class SlotConditionsTest {
    private static final FaultMajors MAJORS = new FaultMajors(Map.of());
    private static final FaultMajors SMALL_KEEP = new FaultMajors(Map.of("max_slot_wal_keep_size", "1MB"));

    static Stream<Integer> majors() {
        return FaultMajors.newestAndOldest();
    }

    static Stream<Integer> majorsWithKeepSize() {
        return FaultMajors.newestAndOldest(13);
    }

    @AfterAll
    static void stopServers() {
        MAJORS.close();
        SMALL_KEEP.close();
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void slotInUseIsTypedAndWaitedForOnlyWithinTheDeadline(int major) throws Exception {
        PgServer s = MAJORS.server(major);
        setUp(s, "s_busy");
        PgConnection holderConn = await(PgConnection.connect(replication(s)));
        LogicalReplicationStream holder = holderConn.startLogical(options("s_busy", "s_busy_pub"), new SlotSupport.Handler());
        await(holder.started());

        // A plain stream: 55006, typed, not transient.
        try (PgConnection c = await(PgConnection.connect(replication(s)))) {
            LogicalReplicationStream st = c.startLogical(options("s_busy", "s_busy_pub"), new SlotSupport.Handler());
            ReplicationSlotException e = assertInstanceOf(ReplicationSlotException.class, failure(st.started()));
            assertEquals(Condition.IN_USE, e.condition());
            assertEquals("55006", e.sqlState());
            assertFalse(e.isTransient());
        }

        // Reconnecting without a wait: fails at the first refusal.
        SlotSupport.Handler h0 = new SlotSupport.Handler();
        ReconnectingLogicalStream noWait = ReconnectingLogicalStream.start(replication(s), options("s_busy", "s_busy_pub"), h0,
                FAST.withSlotInUseWait(Duration.ZERO));
        ReplicationSlotException e0 = assertInstanceOf(ReplicationSlotException.class, failure(noWait.completion()));
        assertEquals(Condition.IN_USE, e0.condition());
        assertEquals(0, noWait.reconnects());
        assertEquals(0, h0.started.get());

        // A short wait that the holder outlasts: retried, then the same typed error.
        ReconnectingLogicalStream shortWait = ReconnectingLogicalStream.start(replication(s), options("s_busy", "s_busy_pub"),
                new SlotSupport.Handler(), FAST.withSlotInUseWait(Duration.ofMillis(800)));
        ReplicationSlotException e1 = assertInstanceOf(ReplicationSlotException.class, failure(shortWait.completion()));
        assertEquals(Condition.IN_USE, e1.condition());
        assertTrue(shortWait.reconnects() >= 1, "retried while waiting: " + shortWait.reconnects());

        // A long wait: retried until the holder lets go, then streams.
        SlotSupport.Handler h = new SlotSupport.Handler();
        ReconnectingLogicalStream patient = ReconnectingLogicalStream.start(replication(s), options("s_busy", "s_busy_pub"), h,
                FAST.withSlotInUseWait(Duration.ofSeconds(45)));
        waitUntil("two refusals", () -> patient.reconnects() >= 2);
        assertEquals(0, h.started.get());
        await(holder.stop());
        holderConn.close();
        waitUntil("the waiting stream to start", () -> h.started.get() == 1);
        s.sql("postgres", "INSERT INTO s_busy VALUES (1)");
        waitUntil("the row", () -> h.inserts.contains("1"));
        await(patient.stop());
        dropWhenInactive(s, "s_busy");
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void slotMissingAtStartOrDroppedWhileStreamingIsTypedAndNotRetried(int major) throws Exception {
        PgServer s = MAJORS.server(major);
        setUp(s, "s_drop");
        ReconnectingLogicalStream none = ReconnectingLogicalStream.start(replication(s), options("s_never_made", "s_drop_pub"),
                new SlotSupport.Handler(), FAST);
        ReplicationSlotException missing = assertInstanceOf(ReplicationSlotException.class, failure(none.completion()));
        assertEquals(Condition.MISSING, missing.condition());
        assertEquals("42704", missing.sqlState());
        assertTrue(missing.beforeCopy());
        assertEquals(0, none.reconnects(), "a missing slot is not retried");

        SlotSupport.Handler h = new SlotSupport.Handler();
        ReconnectingLogicalStream r = ReconnectingLogicalStream.start(replication(s), options("s_drop", "s_drop_pub"), h, FAST);
        s.sql("postgres", "INSERT INTO s_drop VALUES (1)");
        waitUntil("the row", () -> h.inserts.contains("1"));
        // An active slot cannot be dropped: end its walsender, then drop it before the stream
        // reconnects (it may win a round; try again).
        try (PgConnection sql = SlotSupport.sql(s)) {
            long deadline = System.nanoTime() + SlotSupport.WAIT.toNanos();
            while (true) {
                await(sql.query("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 's_drop'"));
                try {
                    await(sql.query("SELECT pg_drop_replication_slot('s_drop')"));
                    break;
                } catch (PgException e) {
                    if (!"55006".equals(e.sqlState()) || System.nanoTime() > deadline) throw e;
                }
            }
        }
        ReplicationSlotException dropped = assertInstanceOf(ReplicationSlotException.class, failure(r.completion()));
        assertEquals(Condition.MISSING, dropped.condition());
        assertFalse(dropped.isTransient());
        assertTrue(r.reconnects() >= 1, "the terminated walsender was reconnected once, then the missing slot ended it");
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majorsWithKeepSize")
    void slotInvalidatedByMaxSlotWalKeepSizeIsTypedWithTheReason(int major) throws Exception {
        PgServer s = SMALL_KEEP.server(major);
        setUp(s, "s_lost");
        SlotSupport.Handler h = new SlotSupport.Handler();
        // Nothing is acknowledged: the slot's restart_lsn stays where it was created.
        ReconnectingLogicalStream r = ReconnectingLogicalStream.start(replication(s), options("s_lost", "s_lost_pub"), h, FAST);
        s.sql("postgres", "INSERT INTO s_lost VALUES (0)");
        waitUntil("streaming", () -> h.inserts.contains("0"));
        String expectedReason;
        try (PgConnection sql = SlotSupport.sql(s)) {
            String status = "";
            for (int i = 1; i <= 20 && !"lost".equals(status); i++) {
                // Each switch needs WAL written since the previous one.
                await(sql.simpleQuery("INSERT INTO s_lost VALUES (" + i + "); SELECT pg_switch_wal();"
                        + " INSERT INTO s_lost VALUES (" + (1000 + i) + "); SELECT pg_switch_wal(); CHECKPOINT"));
                status = value(sql, "SELECT wal_status FROM pg_replication_slots WHERE slot_name = 's_lost'");
            }
            assertEquals("lost", status, "the slot fell behind max_slot_wal_keep_size");
            expectedReason = major >= 17
                    ? value(sql, "SELECT invalidation_reason FROM pg_replication_slots WHERE slot_name = 's_lost'")
                    : "wal_removed"; // before 17, wal_status 'lost' has this one cause on a primary
        }
        ReplicationSlotException e = assertInstanceOf(ReplicationSlotException.class, failure(r.completion()));
        assertEquals(Condition.INVALIDATED, e.condition(), e.toString());
        assertEquals(expectedReason, e.reason());
        assertEquals("55000", e.sqlState());
        assertFalse(e.isTransient());
        s.dropReplicationSlot("s_lost");
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void publicationMissingOrDroppedIsTypedAndNotRetried(int major) throws Exception {
        PgServer s = MAJORS.server(major);
        setUp(s, "s_pub");
        ReconnectingLogicalStream none = ReconnectingLogicalStream.start(replication(s), options("s_pub", "no_such_pub"),
                new SlotSupport.Handler(), FAST);
        ReplicationPublicationException e0 = assertInstanceOf(ReplicationPublicationException.class, failure(none.completion()));
        assertEquals("42704", e0.sqlState());
        assertTrue(e0.beforeCopy(), "checked before START_REPLICATION");
        assertEquals(0, none.reconnects());

        SlotSupport.Handler h = new SlotSupport.Handler();
        ReconnectingLogicalStream r = ReconnectingLogicalStream.start(replication(s), options("s_pub", "s_pub_pub"), h, FAST);
        s.sql("postgres", "INSERT INTO s_pub VALUES (1)");
        waitUntil("the row", () -> h.inserts.contains("1"));
        s.sql("postgres", "DROP PUBLICATION s_pub_pub");
        s.sql("postgres", "INSERT INTO s_pub VALUES (2)");
        // 10-17: the walsender's ERROR (42704) when it decodes the insert. 18: pgoutput only sends a
        // WARNING (55000, "skipped loading publication") and would stream on without the publication;
        // the stream takes the warning as the same typed end, on the same connection.
        ReplicationPublicationException e = assertInstanceOf(ReplicationPublicationException.class, failure(r.completion()));
        assertEquals(major >= 18 ? "55000" : "42704", e.sqlState(), e.toString());
        assertTrue(e.getMessage().contains("\"s_pub_pub\""), e.getMessage());
        assertFalse(e.isTransient());
        assertFalse(e.beforeCopy(), "mid-stream, on the connection that was streaming");
        assertEquals(0, r.reconnects(), "not retried, and no reconnect was needed to notice");
        assertFalse(h.inserts.contains("2"), "the change after the drop was not delivered");
        dropWhenInactive(s, "s_pub");
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void publicationDroppedEndsAPlainStreamOnAConnectionTheUserOwns(int major) throws Exception {
        PgServer s = MAJORS.server(major);
        setUp(s, "s_pubp");
        java.util.List<String> notices = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (PgConnection c = await(PgConnection.connect(replication(s)))) {
            c.onNotice(n -> notices.add(n.sqlState()));
            SlotSupport.Handler h = new SlotSupport.Handler();
            LogicalReplicationStream st = c.startLogical(options("s_pubp", "s_pubp_pub"), h);
            await(st.started());
            s.sql("postgres", "INSERT INTO s_pubp VALUES (1)");
            waitUntil("the row", () -> h.inserts.contains("1"));
            s.sql("postgres", "DROP PUBLICATION s_pubp_pub");
            s.sql("postgres", "INSERT INTO s_pubp VALUES (2)");
            ReplicationPublicationException e = assertInstanceOf(ReplicationPublicationException.class,
                    failure(st.completion()));
            assertEquals(major >= 18 ? "55000" : "42704", e.sqlState(), e.toString());
            assertFalse(e.isTransient());
            assertFalse(h.inserts.contains("2"), "the change after the drop was not delivered");
            // The user's own listener was not replaced: on 18 it saw the warning too.
            if (major >= 18) assertTrue(notices.contains("55000"), notices.toString());
        }
        dropWhenInactive(s, "s_pubp");
    }

    private static void dropWhenInactive(PgServer s, String slot) throws Exception {
        s.dropReplicationSlot(slot);
    }
}
