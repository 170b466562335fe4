package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class FeedbackTrackerTest {

    @Test
    void flushFollowsAcknowledgementsOnly() {
        FeedbackTracker t = new FeedbackTracker(false, 0);
        t.transactionStarted();
        t.received(100);
        t.received(150);
        t.transactionEnded(200);
        t.received(200);
        long flush = t.nextFlush();
        assertEquals(0, flush, "nothing acknowledged yet");
        assertEquals(200, t.write(flush));
        t.acknowledge(200);
        assertEquals(200, t.nextFlush());
    }

    @Test
    void zeroWalStartIsNoPosition() {
        FeedbackTracker t = new FeedbackTracker(true, 0);
        t.received(500);
        t.received(0);
        assertEquals(500, t.received());
        t.received(400);
        assertEquals(500, t.received(), "received never moves backwards");
    }

    @Test
    void idleKeepaliveConfirmedOnlyWhenNothingOutstanding() {
        FeedbackTracker t = new FeedbackTracker(true, 0);
        t.keepalive(1000);
        assertEquals(1000, t.nextFlush(), "idle: keepalive WAL end confirmed");

        t.transactionStarted();
        t.keepalive(2000);
        assertEquals(1000, t.nextFlush(), "inside a transaction: no idle confirm");
        t.transactionEnded(2100);
        t.keepalive(2200);
        assertEquals(1000, t.nextFlush(), "delivered but not acknowledged: no idle confirm");
        t.acknowledge(2100);
        assertEquals(2100, t.nextFlush());
        t.keepalive(2300);
        assertEquals(2300, t.nextFlush(), "acknowledged everything: idle confirm again");
    }

    @Test
    void openStreamedTransactionBlocksIdleConfirm() {
        FeedbackTracker t = new FeedbackTracker(true, 0);
        t.streamOpened(7);
        t.keepalive(500);
        assertEquals(0, t.nextFlush());
        t.streamClosed(7, 0); // aborted: nothing to acknowledge
        t.keepalive(600);
        assertEquals(600, t.nextFlush());
        t.streamOpened(8);
        t.streamClosed(8, 700);
        t.keepalive(800);
        assertEquals(600, t.nextFlush(), "stream commit 700 not acknowledged yet");
    }

    @Test
    void closingAnXidNeverOpenedHereLeavesOthersOpen() {
        FeedbackTracker t = new FeedbackTracker(true, 0);
        t.streamOpened(10);
        t.streamClosed(99, 0); // e.g. first block seen on the previous connection
        t.keepalive(500);
        assertEquals(0, t.nextFlush(), "xid 10 is still streaming: no idle confirm");
        assertTrue(t.outstanding());
        t.streamClosed(10, 0);
        t.keepalive(600);
        assertEquals(600, t.nextFlush());
    }

    @Test
    void laterSegmentOfUnknownXidCountsAsOpen() {
        FeedbackTracker t = new FeedbackTracker(true, 0);
        t.streamOpened(5);
        t.streamOpened(5); // a later block of the same xid: still one transaction
        t.streamClosed(5, 0);
        t.keepalive(300);
        assertEquals(300, t.nextFlush(), "one open xid, closed once");
    }

    @Test
    void standaloneMessageMustBeAcknowledged() {
        FeedbackTracker t = new FeedbackTracker(true, 0);
        t.standaloneDelivered(300);
        t.keepalive(400);
        assertEquals(0, t.nextFlush());
        t.acknowledge(300);
        t.keepalive(450);
        assertEquals(450, t.nextFlush());
    }

    @Test
    void idleConfirmSwitchedOff() {
        FeedbackTracker t = new FeedbackTracker(false, 0);
        t.keepalive(1000);
        assertEquals(0, t.nextFlush());
        assertFalse(t.outstanding());
    }

    @Test
    void frozenAfterStopDecision() {
        FeedbackTracker t = new FeedbackTracker(true, 0);
        t.acknowledge(100);
        assertEquals(100, t.nextFlush());
        t.freeze();
        t.acknowledge(200);
        t.keepalive(300);
        assertEquals(100, t.nextFlush());
    }

    @Test
    void resumePositionReportedAndNoOutstanding() {
        FeedbackTracker t = new FeedbackTracker(true, 5000);
        assertFalse(t.outstanding());
        assertEquals(5000, t.nextFlush());
        t.acknowledge(4000);
        assertEquals(5000, t.nextFlush(), "lower acknowledgement ignored");
    }

    /** Random event sequences: flush is monotonic and never above max(ack, an idle keepalive). */
    @Test
    void randomSequencesKeepInvariants() {
        Random r = new Random(42);
        for (int run = 0; run < 500; run++) {
            FeedbackTracker t = new FeedbackTracker(r.nextBoolean(), 0);
            long pos = 0;
            long maxAck = 0;
            long maxIdleKeepalive = 0;
            long lastFlush = 0;
            boolean inTx = false;
            long delivered = 0;
            for (int step = 0; step < 200; step++) {
                pos += r.nextInt(100);
                switch (r.nextInt(6)) {
                    case 0 -> {
                        if (!inTx) {
                            t.transactionStarted();
                            inTx = true;
                        }
                    }
                    case 1 -> {
                        if (inTx) {
                            t.transactionEnded(pos);
                            delivered = Math.max(delivered, pos);
                            inTx = false;
                        }
                    }
                    case 2 -> t.received(r.nextInt(4) == 0 ? 0 : pos);
                    case 3 -> {
                        long a = delivered == 0 ? 0 : (long) (r.nextDouble() * delivered);
                        t.acknowledge(a);
                        maxAck = Math.max(maxAck, a);
                    }
                    case 4 -> {
                        boolean idle = !inTx && delivered <= maxAck;
                        t.keepalive(pos);
                        if (idle) maxIdleKeepalive = Math.max(maxIdleKeepalive, pos);
                    }
                    default -> {
                        long f = t.nextFlush();
                        assertTrue(f >= lastFlush, "monotonic");
                        assertTrue(f <= Math.max(maxAck, maxIdleKeepalive), "never above acknowledged/idle-confirmable");
                        assertTrue(t.write(f) >= f);
                        lastFlush = f;
                    }
                }
            }
        }
    }
}
