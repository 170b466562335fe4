package io.pgrepl.codec.pgoutput;

import static io.pgrepl.codec.pgoutput.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.record.*;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The steady-state view path must not allocate: measured with the JVM's per-thread allocation
 * counter (not a timing), over a transaction of Begin, Insert, Update (with key), Delete, Commit.
 */
class DecoderAllocationTest {
    private long sink;

    @Test
    void viewPathAllocatesNothingPerMessage() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "HotSpot allocation counter needed");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled());

        PgOutputDecoder decoder = new PgOutputDecoder();
        decoder.decode(PgOutputTestEncoder.encode(USERS_RELATION), new PgOutputHandler() {});
        Tuple row = tuple(binary("id", 20, 0, 0, 0, 0, 0, 0, 0, 7), text("name", 25, "alice"),
                kind("bio", 25, ColumnKind.UNCHANGED_TOAST), kind("avatar", 17, ColumnKind.NULL));
        Tuple key = tuple(text("id", 20, "7"), kind("name", 25, ColumnKind.ABSENT), kind("bio", 25, ColumnKind.ABSENT),
                kind("avatar", 17, ColumnKind.ABSENT));
        List<ByteBuf> txn = List.of(
                PgOutputTestEncoder.encode(new Begin(100, 200, 300)),
                PgOutputTestEncoder.encode(new Insert(0, USERS, row)),
                PgOutputTestEncoder.encode(new Update(0, USERS, 'K', key, row)),
                PgOutputTestEncoder.encode(new Delete(0, USERS, 'K', key)),
                PgOutputTestEncoder.encode(new Commit(0, 400, 500, 600)));
        ByteBuf[] msgs = txn.stream().map(b -> Unpooled.directBuffer().writeBytes(b)).toArray(ByteBuf[]::new);

        PgOutputHandler handler = new PgOutputHandler() {
            @Override
            public void onBegin(BeginMessage m) {
                sink += m.finalLsn() + m.xid() + m.commitTimeMicros();
            }

            @Override
            public void onInsert(InsertMessage m) {
                TupleView t = m.newTuple();
                sink += t.int8(0) + t.valueLength(1) + t.kind(2).ordinal() + (t.isNull(3) ? 1 : 0);
            }

            @Override
            public void onUpdate(UpdateMessage m) {
                sink += m.oldTuple().int8(0) + (m.oldTuple().isPresent(1) ? 1 : 0) + m.newTuple().valueIndex(1);
            }

            @Override
            public void onDelete(DeleteMessage m) {
                sink += m.oldTuple().int8(0) + m.relation().oid();
            }

            @Override
            public void onCommit(CommitMessage m) {
                sink += m.endLsn();
            }
        };
        int rounds = 50_000;
        for (int i = 0; i < rounds; i++) for (ByteBuf m : msgs) decoder.decode(m, handler);

        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        for (int i = 0; i < rounds; i++) for (ByteBuf m : msgs) decoder.decode(m, handler);
        long allocated = mx.getThreadAllocatedBytes(tid) - before;

        double perMessage = allocated / (double) (rounds * msgs.length);
        System.out.printf("pgoutput view path: %d bytes allocated over %d messages (%.4f B/msg)%n",
                allocated, rounds * msgs.length, perMessage);
        assertTrue(perMessage < 0.5, "allocated " + allocated + " bytes over " + rounds * msgs.length + " messages");
        assertNotEquals(0, sink);
    }
}
