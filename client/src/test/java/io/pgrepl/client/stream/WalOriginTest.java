package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The rule that keys the de-duplication floor to a WAL history ({@link WalOrigin#carryOver}). */
class WalOriginTest {
    private static final WalOrigin T1 = new WalOrigin("7000000000000000001", 1);
    private static final WalOrigin T2 = new WalOrigin("7000000000000000001", 2);
    private static final WalOrigin T3 = new WalOrigin("7000000000000000001", 3);
    private static final WalOrigin OTHER = new WalOrigin("7111111111111111111", 1);
    /** As PostgreSQL writes 00000003.history: one line per timeline that ended. */
    private static final String HISTORY_3 = "1\t0/3000158\tno recovery target specified\n\n"
            + "2\t0/5000028\tno recovery target specified\n";

    @Test
    void theFirstConnectionAndTheSameHistoryKeepEverything() {
        assertEquals(0x9000_0000L, WalOrigin.carryOver(0x9000_0000L, null, T1, null));
        assertEquals(0x9000_0000L, WalOrigin.carryOver(0x9000_0000L, T2, T2, null));
    }

    @Test
    void aPromotionKeepsOnlyWhatPrecedesTheSwitchPoint() {
        // acknowledged 0/3000200 on timeline 1, which ended at 0/3000158 in timeline 3's history
        assertEquals(0x3000158L, WalOrigin.carryOver(0x3000200L, T1, T3, HISTORY_3));
        assertEquals(0x5000028L, WalOrigin.carryOver(0x6000000L, T2, T3, HISTORY_3));
        // acknowledged before the switch point (synchronized_standby_slots guarantees this): unchanged
        assertEquals(0x3000000L, WalOrigin.carryOver(0x3000000L, T1, T3, HISTORY_3));
    }

    @Test
    void withoutAComparableHistoryNothingIsKept() {
        assertEquals(0, WalOrigin.carryOver(0x3000000L, T1, OTHER, null), "another cluster");
        assertEquals(0, WalOrigin.carryOver(0x3000000L, T3, T1, null), "an earlier timeline (a former primary)");
        assertEquals(0, WalOrigin.carryOver(0x3000000L, T1, T2, null), "history not available");
        assertEquals(0, WalOrigin.carryOver(0x3000000L, T1, T2, "# nothing\n"), "timeline 1 not named");
        assertEquals(0, WalOrigin.carryOver(0x3000000L, T1, T2, "1\tnot-an-lsn\tx\n"), "malformed");
    }

    @Test
    void switchPointsAreReadFromTheHistoryFile() {
        assertEquals(0x3000158L, WalOrigin.switchpoint(HISTORY_3, 1));
        assertEquals(0x5000028L, WalOrigin.switchpoint(HISTORY_3, 2));
        assertEquals(-1, WalOrigin.switchpoint(HISTORY_3, 3));
    }
}
