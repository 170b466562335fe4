package io.pgrepl.kafka.connect.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rules of {@link AckTracker}, one by one (the model test drives them together). */
class AckTrackerTest {

    private static void handOver(AckTracker a, long lsn, int records) {
        assertTrue(a.open(lsn));
        a.produced(lsn, records);
        a.seal(lsn);
    }

    @Test
    void aTransactionIsConfirmableOnceSealedAndEveryRecordAcknowledged() {
        AckTracker a = new AckTracker();
        assertTrue(a.open(100));
        a.produced(100, 2);
        a.acknowledged(100);
        a.acknowledged(100);
        assertEquals(0, a.confirmable(), "not sealed: more records may follow");
        a.produced(100);
        a.seal(100);
        assertEquals(0, a.confirmable());
        a.acknowledged(100);
        assertEquals(100, a.confirmable());
        assertEquals(0, a.pending());
    }

    @Test
    void neverPastATransactionWithARecordInFlight() {
        AckTracker a = new AckTracker();
        handOver(a, 100, 1);
        handOver(a, 200, 1);
        handOver(a, 300, 2);
        a.acknowledged(300);
        a.acknowledged(300);
        a.acknowledged(200);
        assertEquals(0, a.confirmable(), "100 is still in flight");
        a.acknowledged(100);
        assertEquals(300, a.confirmable());
    }

    @Test
    void aResendIsNotOpenedAgainAndItsRecordsAreNotCounted() {
        AckTracker a = new AckTracker();
        handOver(a, 100, 1);
        assertFalse(a.open(100));
        assertFalse(a.open(50));
        a.produced(50, 3); // not the open transaction: ignored
        a.seal(50);
        a.acknowledged(100);
        assertEquals(100, a.confirmable());
    }

    @Test
    void aTransactionResentAfterAReconnectWhileOpenKeepsCounting() {
        AckTracker a = new AckTracker();
        assertTrue(a.open(100));
        a.produced(100, 2);
        // the stream broke mid-transaction; it comes again and its first records are skipped
        assertFalse(a.open(100));
        a.produced(100, 1);
        a.seal(100);
        a.acknowledged(100);
        a.acknowledged(100);
        assertEquals(0, a.confirmable());
        a.acknowledged(100);
        assertEquals(100, a.confirmable());
    }

    @Test
    void theSlotIsConfirmedWithWhatWasWhollyInKafkaAtThePreviousOffsetCommit() {
        AckTracker a = new AckTracker();
        handOver(a, 100, 1);
        a.acknowledged(100);
        assertEquals(0, a.offsetsCommitted(), "its offset may have been acknowledged after the flush began");
        handOver(a, 200, 1);
        a.acknowledged(200);
        assertEquals(100, a.offsetsCommitted());
        assertEquals(200, a.offsetsCommitted());
        assertEquals(200, a.offsetsCommitted(), "nothing new: the same again");
    }

    @Test
    void snapshotReadsAndHeartbeatsHoldBackLaterTransactions() {
        AckTracker a = new AckTracker();
        a.untracked(AckTracker.ticket(Position.snapshotRead(50, 0)));
        a.untracked(AckTracker.ticket(Position.snapshotDone(50)));
        handOver(a, 100, 1);
        a.acknowledged(100);
        assertEquals(0, a.confirmable(), "reads before it are in flight");
        a.untrackedAcknowledged(AckTracker.ticket(Position.snapshotDone(50)));
        assertEquals(0, a.confirmable());
        a.untrackedAcknowledged(AckTracker.ticket(Position.snapshotRead(50, 0)));
        assertEquals(100, a.confirmable());

        Map<String, Object> heartbeat = Position.of(100, 0, Position.ALL_PARTS).toOffset();
        a.untracked(AckTracker.ticket(heartbeat));
        a.untrackedAcknowledged(AckTracker.ticket(heartbeat)); // acknowledged before anything follows
        a.untracked(AckTracker.ticket(heartbeat));
        handOver(a, 200, 1);
        a.acknowledged(200);
        assertEquals(100, a.confirmable(), "the second heartbeat is in flight");
        a.untrackedAcknowledged(AckTracker.ticket(heartbeat));
        assertEquals(200, a.confirmable());
    }

    @Test
    void aHeartbeatBeforeTheResentBoundaryTransactionHoldsItBack() {
        // After a restart from an offset inside transaction 500: a heartbeat carries that offset,
        // then the rest of 500 is handed over. Connect cannot commit 500's offsets past the heartbeat.
        AckTracker a = new AckTracker();
        Map<String, Object> heartbeat = Position.of(500, 2, Position.PART_MAIN).toOffset();
        a.untracked(AckTracker.ticket(heartbeat));
        handOver(a, 500, 1);
        a.acknowledged(500);
        assertEquals(0, a.confirmable());
        a.untrackedAcknowledged(AckTracker.ticket(heartbeat));
        assertEquals(500, a.confirmable());
    }

    @Test
    void aHeartbeatBetweenTwoChunksHoldsBackTheOpenTransaction() {
        AckTracker a = new AckTracker();
        assertTrue(a.open(100));
        a.produced(100, 1);
        Map<String, Object> heartbeat = Position.of(100, 0, Position.ALL_PARTS).toOffset();
        a.untracked(AckTracker.ticket(heartbeat));
        a.produced(100, 1);
        a.seal(100);
        a.acknowledged(100);
        a.acknowledged(100);
        assertEquals(0, a.confirmable(), "the heartbeat came before the second chunk");
        a.untrackedAcknowledged(AckTracker.ticket(heartbeat));
        assertEquals(100, a.confirmable());
    }

    /**
     * The work per call must not grow with the transactions in flight. The
     * tracker counts the entries it looks at; 20,000 one-record transactions in flight, then
     * acknowledged newest first (the order that hurts a search from the head most).
     */
    @Test
    void workPerCallStaysFlatWithManyTransactionsInFlight() {
        AckTracker a = new AckTracker();
        int n = 20_000;
        for (int i = 1; i <= n; i++) handOver(a, i * 10L, 1);
        long handOverProbes = a.probes;
        assertTrue(handOverProbes <= 2L * n, "open/produced/seal looked at " + handOverProbes + " entries for " + n
                + " transactions");
        for (int i = n; i >= 1; i--) a.acknowledged(i * 10L);
        assertEquals(n * 10L, a.confirmable());
        long ackProbes = a.probes - handOverProbes;
        assertTrue(ackProbes <= (long) n * 17, "acknowledgements looked at " + ackProbes + " entries (log2 20000 < 15)");
        assertEquals(0, a.pending());
    }
}
