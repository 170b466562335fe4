package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.BeginMessage;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.LogicalMessage;
import io.pgrepl.codec.pgoutput.PgOutputDecoder;
import io.pgrepl.codec.pgoutput.PgOutputState;
import io.pgrepl.codec.pgoutput.StreamCommitMessage;
import io.pgrepl.codec.pgoutput.StreamStartMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@link DedupDispatcher} withholds at a given floor, message by message: pgoutput bytes as
 * the server sends them, decoded by the real decoder; expected values written out by hand.
 */
class DedupDispatcherTest {
    private final List<String> seen = new ArrayList<>();
    private final List<Long> delivered = new ArrayList<>();

    private DedupDispatcher dispatcher(long floor) {
        LogicalStreamHandler h = new LogicalStreamHandler() {
            @Override
            public void onBegin(BeginMessage m) {
                seen.add("B" + Long.toHexString(m.finalLsn()));
            }

            @Override
            public void onCommit(CommitMessage m) {
                seen.add("C" + Long.toHexString(m.endLsn()));
            }

            @Override
            public void onMessage(LogicalMessage m) {
                seen.add("M" + Long.toHexString(m.messageLsn()));
            }

            @Override
            public void onStreamStart(StreamStartMessage m) {
                seen.add("S" + m.xid());
            }

            @Override
            public void onStreamCommit(StreamCommitMessage m) {
                seen.add("c" + Long.toHexString(m.endLsn()));
            }
        };
        return new DedupDispatcher(h, new FeedbackTracker(false, floor), floor, delivered::add);
    }

    private final PgOutputDecoder decoder = new PgOutputDecoder(new PgOutputState());

    private void feed(DedupDispatcher d, byte[] message) {
        decoder.decode(Unpooled.wrappedBuffer(message), d);
    }

    private void transaction(DedupDispatcher d, long finalLsn, long endLsn) {
        feed(d, ByteBuffer.allocate(21).put((byte) 'B').putLong(finalLsn).putLong(0).putInt(700).array());
        feed(d, ByteBuffer.allocate(26).put((byte) 'C').put((byte) 0).putLong(finalLsn).putLong(endLsn).putLong(0).array());
    }

    private void standaloneMessage(DedupDispatcher d, long lsn) {
        byte[] prefix = "p\0".getBytes(StandardCharsets.UTF_8);
        feed(d, ByteBuffer.allocate(1 + 1 + 8 + prefix.length + 4 + 1).put((byte) 'M').put((byte) 0).putLong(lsn)
                .put(prefix).putInt(1).put((byte) 'x').array());
    }

    private void streamed(DedupDispatcher d, int xid, long commitLsn, long endLsn) {
        feed(d, ByteBuffer.allocate(6).put((byte) 'S').putInt(xid).put((byte) 1).array());
        feed(d, new byte[] {'E'});
        feed(d, ByteBuffer.allocate(30).put((byte) 'c').putInt(xid).put((byte) 0).putLong(commitLsn).putLong(endLsn)
                .putLong(0).array());
    }

    @Test
    void transactionsCommittedBelowTheFloorAreWithheldWhole() {
        DedupDispatcher d = dispatcher(0x3000);
        transaction(d, 0x2F00, 0x3000); // ends at the floor: acknowledged before
        transaction(d, 0x3000, 0x3100); // its commit record starts at the floor: after it
        assertEquals(List.of("B3000", "C3100"), seen);
        assertEquals(List.of(0x3100L), delivered);
        assertEquals(1, d.transactions);
    }

    @Test
    void standaloneMessagesAtOrBelowTheFloorAreWithheld() {
        DedupDispatcher d = dispatcher(0x3000);
        standaloneMessage(d, 0x3000);
        standaloneMessage(d, 0x3001);
        assertEquals(List.of("M3001"), seen);
        assertEquals(List.of(0x3001L), delivered);
    }

    @Test
    void streamedTransactionsAreNotWithheldTheHandlerDecidesAtStreamCommit() {
        DedupDispatcher d = dispatcher(0x3000);
        streamed(d, 800, 0x2000, 0x2100);
        assertEquals(List.of("S800", "c2100"), seen);
    }

    @Test
    void floorZeroWithholdsNothing() {
        DedupDispatcher d = dispatcher(0);
        transaction(d, 0x10, 0x20);
        standaloneMessage(d, 0x30);
        assertEquals(List.of("B10", "C20", "M30"), seen);
        assertEquals(List.of(0x20L, 0x30L), delivered);
    }
}
