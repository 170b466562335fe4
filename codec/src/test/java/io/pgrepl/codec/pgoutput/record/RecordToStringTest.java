package io.pgrepl.codec.pgoutput.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Records that carry LSNs print them as PostgreSQL does ({@code %X/%X}). Expected strings written by hand. */
class RecordToStringTest {
    @Test
    void beginAndCommit() {
        assertEquals("Begin[finalLsn=0/1A2B3C8, commitTimeMicros=1000, xid=745]",
                new Begin(0x1A2B3C8L, 1000, 745).toString());
        assertEquals("Commit[flags=0, commitLsn=16/B374D848, endLsn=16/B374D878, commitTimeMicros=1000]",
                new Commit(0, 0x16_B374D848L, 0x16_B374D878L, 1000).toString());
    }

    @Test
    void twoPhase() {
        assertEquals("Prepare[flags=0, prepareLsn=0/5000028, endLsn=0/5000058, prepareTimeMicros=2, xid=4294967295, gid=g1]",
                new Prepare(0, 0x5000028L, 0x5000058L, 2, 0xFFFFFFFFL, "g1").toString());
        assertEquals("RollbackPrepared[flags=0, prepareEndLsn=0/5000058, rollbackEndLsn=0/6000000,"
                        + " prepareTimeMicros=2, rollbackTimeMicros=3, xid=9, gid=g1]",
                new RollbackPrepared(0, 0x5000058L, 0x6000000L, 2, 3, 9, "g1").toString());
    }

    @Test
    void streamAbortOriginAndMessage() {
        assertEquals("StreamAbort[xid=10, subXid=11, hasAbortInfo=true, abortLsn=A/0, abortTimeMicros=5]",
                new StreamAbort(10, 11, true, 0xA_00000000L, 5).toString());
        assertEquals("Origin[originLsn=FFFFFFFF/FFFFFFFF, name=upstream]", new Origin(-1L, "upstream").toString());
        assertEquals("Message[xid=0, flags=0, messageLsn=0/16B3C80, prefix=p, content=2 bytes]",
                new Message(0, 0, 0x16B3C80L, "p", new byte[2]).toString());
    }
}
