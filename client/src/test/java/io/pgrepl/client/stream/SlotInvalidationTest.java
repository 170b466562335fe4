package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgException;
import io.pgrepl.codec.backend.ErrorFields;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How a slot invalidation is named when the catalog cannot be asked (the server's DETAIL, in the
 * words of 16 and of 17/18), and that a standby's recovery-conflict cancel is retried once while
 * the invalidation it reveals is not. The catalog path runs against real standbys in
 * integration-tests' StandbyDecodingTest.
 */
class SlotInvalidationTest {
    private static PgException error(String sqlState, String message, String detail) {
        Map<Character, String> f = new HashMap<>(Map.of('S', "ERROR", 'V', "ERROR", 'C', sqlState, 'M', message));
        if (detail != null) f.put('D', detail);
        return new PgException(ErrorFields.of(f));
    }

    private static ReplicationSlotException refusedAtStart(String detail) {
        return assertInstanceOf(ReplicationSlotException.class, ReplicationServerErrorException.classify(
                error("55000", "can no longer access replication slot \"s\"", detail), true));
    }

    @Test
    void theDetailNamesTheReasonOn17AndLater() {
        ReplicationSlotException e = SlotChecks.fromDetail(
                refusedAtStart("This replication slot has been invalidated due to \"wal_level_insufficient\"."));
        assertEquals(ReplicationSlotException.Condition.INVALIDATED, e.condition());
        assertEquals("wal_level_insufficient", e.reason());
        assertTrue(e.getMessage().contains("wal_level=logical") && e.getMessage().contains("drop and create"), e.getMessage());
        assertFalse(e.isTransient());
    }

    @Test
    void sixteenOnlySaysConflicting() {
        ReplicationSlotException e = SlotChecks.fromDetail(
                refusedAtStart("This slot has been invalidated because it was conflicting with recovery."));
        assertEquals("conflicting", e.reason());
        assertTrue(e.getMessage().contains("hot_standby_feedback=on"), e.getMessage());
    }

    @Test
    void anotherDetailStaysUnusable() {
        ReplicationSlotException refused = refusedAtStart("This slot belongs to database \"other\".");
        assertSame(refused, SlotChecks.fromDetail(refused));
        ReplicationSlotException noDetail = refusedAtStart(null);
        assertSame(noDetail, SlotChecks.fromDetail(noDetail));
        assertEquals(ReplicationSlotException.Condition.UNUSABLE, noDetail.condition());
    }

    @Test
    void everyReasonHasItsOwnFix() {
        assertTrue(ReplicationSlotException.explanation("rows_removed").contains("hot_standby_feedback=on"));
        assertTrue(ReplicationSlotException.explanation("wal_removed").contains("max_slot_wal_keep_size"));
        assertTrue(ReplicationSlotException.explanation("idle_timeout").contains("idle_replication_slot_timeout"));
        assertTrue(ReplicationSlotException.explanation("something_new").contains("never stream from it again"));
        assertTrue(ReplicationSlotException.explanation(null).contains("drop and create"));
    }

    @Test
    void aRecoveryConflictCancelIsRetriedOnce() {
        ReplicationServerErrorException cancel = ReplicationServerErrorException.classify(
                error("40001", "canceling statement due to conflict with recovery",
                        "User was using a logical replication slot that must be invalidated."), false);
        assertEquals(ReplicationServerErrorException.class, cancel.getClass());
        assertTrue(cancel.isTransient(), "a reconnect tells whether the slot survived");
        assertFalse(ReplicationServerErrorException.classify(error("42501", "permission denied", null), false).isTransient());
        assertNull(refusedAtStart(null).reason());
    }
}
