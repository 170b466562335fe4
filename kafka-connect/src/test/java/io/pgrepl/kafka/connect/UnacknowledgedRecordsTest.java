package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The two limits on what waits for Kafka (issue 19, defect 2): a count, and the time Kafka would
 * need at the pace it acknowledged records over the last second. A hand-driven clock makes the pace
 * exact; expected rooms are worked out from the numbers here, not from the code.
 */
class UnacknowledgedRecordsTest {
    private final AtomicLong now = new AtomicLong(TimeUnit.SECONDS.toNanos(1000));

    private UnacknowledgedRecords limits(int records, long millis) {
        return new UnacknowledgedRecords(records, millis, now::get);
    }

    private void advanceMillis(long ms) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    @Test
    void withNothingWaitingOneChunkMayGoBeforeAnyPaceIsKnown() throws Exception {
        assertEquals(1, limits(4096, 1000).awaitRoom(0));
    }

    @Test
    void whatWaitsIsBoundedByKafkasPaceOverTheLastSecond() throws Exception {
        UnacknowledgedRecords u = limits(4096, 1000);
        u.handedOver(100);
        for (int i = 0; i < 30; i++) u.acknowledged(); // 30 a second: 1000 ms of them is 30
        assertEquals(70, u.count());
        assertEquals(0, u.awaitRoom(0), "70 waiting would take Kafka over 2 s at 30 a second");
        advanceMillis(300);
        for (int i = 0; i < 50; i++) u.acknowledged(); // 80 within the last second, 20 waiting
        assertEquals(60, u.awaitRoom(0));
        // A second later nothing was acknowledged within it: the pace is unknown, and what waits stays.
        advanceMillis(1100);
        assertEquals(0, u.awaitRoom(0));
    }

    @Test
    void aSlowSecondWhileRecordsWaitedIsRememberedForAFewSeconds() throws Exception {
        UnacknowledgedRecords u = limits(4096, 1000);
        advanceMillis(500);
        u.handedOver(1000); // half way into a second: that second says nothing
        advanceMillis(600);
        for (int i = 0; i < 24; i++) u.acknowledged(); // the next second, waited throughout: 24 acknowledged
        advanceMillis(1000);
        for (int i = 0; i < 970; i++) u.acknowledged(); // then a fast burst: 970 within the last second, 6 waiting
        assertEquals(18, u.awaitRoom(0), "planned at the slow second's pace: 24 - 6");
        for (int i = 0; i < 6; i++) u.acknowledged(); // nothing waits: the idle seconds after say nothing
        advanceMillis(5000);
        u.handedOver(100);
        for (int i = 0; i < 60; i++) u.acknowledged(); // 60 within the last second, 40 waiting
        assertEquals(20, u.awaitRoom(0), "the slow second, 6 s old, is forgotten");
    }

    @Test
    void aWholeSecondWithoutAcknowledgementWhileRecordsWaitAllowsNothingMore() throws Exception {
        UnacknowledgedRecords u = limits(4096, 1000);
        u.handedOver(100);
        for (int i = 0; i < 90; i++) u.acknowledged();
        advanceMillis(2500); // the next second passes with 10 waiting and none acknowledged
        u.acknowledged();
        for (int i = 0; i < 8; i++) u.acknowledged(); // 1 waiting, 9 acknowledged within the last second
        assertEquals(0, u.awaitRoom(0));
        u.acknowledged();
        assertEquals(1, u.awaitRoom(0), "nothing waits: one may go");
    }

    @Test
    void aShorterTimeLimitAllowsProportionallyLess() throws Exception {
        UnacknowledgedRecords u = limits(4096, 250);
        u.handedOver(500);
        for (int i = 0; i < 400; i++) u.acknowledged(); // 400 a second, 100 waiting: 250 ms of them is 100
        assertEquals(0, u.awaitRoom(0));
        u.acknowledged(); // 401 a second (100.25 in 250 ms), 99 waiting
        assertEquals(1, u.awaitRoom(0));
    }

    @Test
    void theRecordLimitHoldsWhateverThePace() throws Exception {
        UnacknowledgedRecords u = limits(10, 1000);
        u.handedOver(1000);
        for (int i = 0; i < 996; i++) u.acknowledged(); // 996 a second, 4 waiting
        assertEquals(6, u.awaitRoom(0));
    }

    @Test
    void anAcknowledgementWakesAWaitingPoll() throws Exception {
        UnacknowledgedRecords u = new UnacknowledgedRecords(4096, 1000);
        u.handedOver(1);
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
