package io.pgrepl.kafka.connect.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The limits on what waits for Kafka: a count, a start allowance until twelve
 * seconds have told Kafka's pace, then the time Kafka would need at its slowest pace of the last 16
 * seconds. A hand-driven clock makes the pace exact; expected rooms are worked out from the numbers
 * here, not from the code.
 */
class UnacknowledgedRecordsTest {
    private static final int START = 32;
    private final AtomicLong now = new AtomicLong(TimeUnit.SECONDS.toNanos(1000));

    private UnacknowledgedRecords limits(int records, long millis) {
        return new UnacknowledgedRecords(records, millis, START, now::get);
    }

    private void advanceMillis(long ms) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    private static void acknowledge(UnacknowledgedRecords u, int n) {
        for (int i = 0; i < n; i++) u.acknowledged();
    }

    /**
     * Thirteen seconds in which one record waited throughout and Kafka acknowledged {@code perSecond}
     * records at the start of each; returns at the start of the fourteenth, one record waiting.
     */
    private void knownPace(UnacknowledgedRecords u, int perSecond) {
        u.handedOver(1);
        for (int s = 0; s < 13; s++) {
            u.handedOver(perSecond);
            acknowledge(u, perSecond);
            advanceMillis(1000);
        }
    }

    @Test
    void untilTwelveSecondsTellKafkasPaceOnlyTheStartAllowanceWaits() throws Exception {
        UnacknowledgedRecords u = limits(4096, 1000);
        assertEquals(START, u.awaitRoom(0), "nothing known, nothing waiting");
        u.handedOver(1);
        for (int s = 0; s < 13; s++) {
            u.handedOver(1000);
            acknowledge(u, 1000); // 1,000 a second, one record waiting throughout
            long room = u.awaitRoom(0);
            if (s < 12) assertEquals(START - 1, room, "second " + s + ": " + s + " seconds known");
            else assertEquals(999, room, "twelve seconds known: 1,000 a second, one waiting");
            advanceMillis(1000);
        }
    }

    @Test
    void whatWaitsIsBoundedByKafkasPace() throws Exception {
        UnacknowledgedRecords u = limits(4096, 1000);
        knownPace(u, 1000);
        u.handedOver(1000);
        acknowledge(u, 600); // 600 within the last second so far: the pace to plan with, 401 waiting
        assertEquals(199, u.awaitRoom(0));
        acknowledge(u, 400); // 1,000 now, the remembered seconds' pace too; 1 waiting
        assertEquals(999, u.awaitRoom(0));
    }

    @Test
    void aShorterTimeLimitAllowsProportionallyLess() throws Exception {
        UnacknowledgedRecords u = limits(4096, 250);
        knownPace(u, 400);
        u.handedOver(400);
        acknowledge(u, 400); // 400 a second: 250 ms of them is 100, 1 waiting
        assertEquals(99, u.awaitRoom(0));
    }

    @Test
    void theRecordLimitHoldsWhateverThePace() throws Exception {
        UnacknowledgedRecords u = limits(10, 1000);
        assertEquals(10, u.awaitRoom(0), "below the start allowance too");
        knownPace(u, 1000);
        u.handedOver(1000);
        acknowledge(u, 996); // 5 waiting
        assertEquals(5, u.awaitRoom(0));
    }

    /*
     * What GracefulStopTest's sampler showed under a 600 kB/s quota: in a throttled second the records
     * allowed to wait were acknowledged together and new ones went at once, so records never waited
     * throughout that second; it was not remembered, and the next fast second let 1,800 wait into
     * the next stall.
     */
    @Test
    void aThrottledSecondThatHeldPollBackIsRememberedLongerThanAQuotaWindow() throws Exception {
        UnacknowledgedRecords u = limits(4096, 1000);
        knownPace(u, 1000);
        u.handedOver(START - 1);
        assertEquals(0, u.awaitRoom(0), "nothing acknowledged within the last second: the start allowance waits");
        advanceMillis(500);
        acknowledge(u, START); // the throttled request returns: nothing waits for a moment
        u.handedOver(START);
        advanceMillis(600);
        for (int s = 0; s < 17; s++) {
            u.handedOver(1000);
            acknowledge(u, 1000); // fast again, 32 waiting throughout
            long room = u.awaitRoom(0);
            if (s < 16) assertEquals(0, room, s + 1 + " s after the throttled second: planned at its 32 a second");
            else assertEquals(1000 - START, room, "17 s after: forgotten");
            advanceMillis(1000);
        }
    }

    /*
     * SnapshotKillTest's copy, Kafka keeping up: the start allowance went out and came back within
     * each cycle, so no second ended with records waiting, none counted, and the copy stayed at 32
     * records in flight for good.
     */
    @Test
    void secondsThatHeldPollBackCountEvenIfNothingWaitsAtTheirEnd() throws Exception {
        UnacknowledgedRecords u = limits(4096, 1000);
        for (int s = 0; s < 13; s++) {
            u.handedOver(START);
            assertEquals(0, u.awaitRoom(0), "second " + s + ": held back");
            acknowledge(u, START); // all back: nothing waits at the second's end
            advanceMillis(1000);
        }
        u.handedOver(START);
        acknowledge(u, START); // 32 within the last second, as in each of the 13 before it
        assertEquals(START, u.awaitRoom(0), "13 seconds known at 32 a second: the floor, nothing waiting");
        u.handedOver(START);
        acknowledge(u, START); // 64 within the last second now; the slowest remembered second, 32
        for (int s = 0; s < 16; s++) {
            advanceMillis(1000);
            u.handedOver(200);
            assertEquals(0, u.awaitRoom(0));
            acknowledge(u, 200);
        }
        advanceMillis(1000);
        u.handedOver(200);
        acknowledge(u, 200);
        assertEquals(200, u.awaitRoom(0), "the seconds at 32 are forgotten; 16 at 200 known");
    }

    @Test
    void theStartAllowanceIsAlsoTheFloor() throws Exception {
        UnacknowledgedRecords u = limits(4096, 1000);
        knownPace(u, 1000);
        advanceMillis(2500); // two whole seconds without an acknowledgement while a record waits
        assertEquals(START - 1, u.awaitRoom(0), "a pace of 0 shrinks the allowance no further than the start");
    }

    @Test
    void anAcknowledgementWakesAWaitingPoll() throws Exception {
        UnacknowledgedRecords u = new UnacknowledgedRecords(4096, 1000);
        u.handedOver(UnacknowledgedRecords.START);
        AtomicBoolean acked = new AtomicBoolean();
        Thread producer = new Thread(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            acked.set(true);
            u.acknowledged();
        });
        producer.start();
        long room = u.awaitRoom(30_000);
        producer.join();
        assertTrue(acked.get(), "the acknowledgement ran");
        assertTrue(room >= 1, "woken with room: " + room);
    }
}
