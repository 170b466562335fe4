package io.pgrepl.client.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgrepl.client.stream.PhysicalReplicationOptions;
import io.pgrepl.client.stream.StreamMetrics;
import io.pgrepl.client.stream.TimelineSwitch;
import io.pgrepl.client.tx.NonTransactionalMessage;
import io.pgrepl.codec.pgoutput.record.Message;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Results that carry LSNs print them as PostgreSQL does ({@code %X/%X}: upper-case hex halves,
 * unpadded), so a log line can be pasted into {@code pg_lsn} SQL. Expected strings are written by hand.
 */
class LsnToStringTest {
    // 0x16/B374D848 = 97500059720 (pg_lsn '16/B374D848' - '0/0')
    private static final long LSN = 0x16_B374D848L;

    @Test
    void identifySystem() {
        assertEquals("IdentifySystem[systemId=7312345678901234567, timeline=1, xlogPos=16/B374D848, dbname=app]",
                new IdentifySystem("7312345678901234567", 1, 97500059720L, "app").toString());
    }

    @Test
    void slotCreated() {
        assertEquals("SlotCreated[slotName=s1, consistentPoint=0/1A2B3C8, snapshotName=null, outputPlugin=pgoutput]",
                new SlotCreated("s1", 0x1A2B3C8L, null, "pgoutput").toString());
    }

    @Test
    void replicationSlotStatus() {
        assertEquals("ReplicationSlotStatus[slotType=physical, restartLsn=16/B374D848, restartTimeline=3]",
                new ReplicationSlotStatus("physical", LSN, 3).toString());
        assertEquals("ReplicationSlotStatus[slotType=null, restartLsn=0/0, restartTimeline=0]",
                new ReplicationSlotStatus(null, 0, 0).toString());
    }

    @Test
    void timelineSwitch() {
        assertEquals("TimelineSwitch[nextTimeline=2, switchLsn=0/3000000]", new TimelineSwitch(2, 0x3000000L).toString());
    }

    @Test
    void lsnsAboveTwoToTheSixtyThreeStayUnsigned() {
        assertEquals("TimelineSwitch[nextTimeline=2, switchLsn=FFFFFFFF/FFFFFFFF]", new TimelineSwitch(2, -1L).toString());
    }

    @Test
    void streamMetrics() {
        assertEquals("StreamMetrics[messages=5, bytes=640, transactions=2, receivedLsn=16/B374D848, serverWalEnd=16/B3750000,"
                        + " acknowledgedLsn=16/B374D800, flushedLsn=16/B374D000, lagBytes=12288, millisSinceLastMessage=7,"
                        + " statusUpdatesSent=3]",
                new StreamMetrics(5, 640, 2, LSN, 0x16_B3750000L, 0x16_B374D800L, 0x16_B374D000L, 12288, 7, 3).toString());
    }

    @Test
    void physicalReplicationOptions() {
        assertEquals("PhysicalReplicationOptions[slotName=standby_1, startLsn=0/AB000000, timeline=0, statusInterval=PT10S,"
                        + " receiveTimeout=null]",
                PhysicalReplicationOptions.of("standby_1", 0xAB000000L).toString());
        assertEquals("PhysicalReplicationOptions[slotName=null, startLsn=1/0, timeline=4, statusInterval=PT1S,"
                        + " receiveTimeout=PT30S]",
                new PhysicalReplicationOptions(null, 0x1_00000000L, 4, Duration.ofSeconds(1), Duration.ofSeconds(30)).toString());
    }

    @Test
    void nonTransactionalMessage() {
        Message m = new Message(0, 0, 0x16_B374D848L, "heartbeat", new byte[] {1, 2, 3});
        assertEquals("NonTransactionalMessage[prefix=heartbeat, messageLsn=16/B374D848, content=3 bytes]",
                new NonTransactionalMessage(m).toString());
    }
}
