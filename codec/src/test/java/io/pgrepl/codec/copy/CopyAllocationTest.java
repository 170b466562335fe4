package io.pgrepl.codec.copy;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * COPY rows are decoded without allocating per row, in place and through the unescaping scratch
 * buffer alike: measured with the JVM's per-thread allocation counter, not a timing.
 */
class CopyAllocationTest {
    private long sink;

    @Test
    void textAndBinaryRowsAllocateNothingPerRow() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "HotSpot allocation counter needed");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled());
        RelationInfo rel = new RelationInfo(1, "public", "t", 'd',
                List.of(new ColumnInfo(1, "id", 20, -1), new ColumnInfo(0, "v", 25, -1), new ColumnInfo(0, "n", 25, -1)));
        ByteBuf plain = Unpooled.directBuffer().writeBytes("42\tplain value\t\\N\n".getBytes(StandardCharsets.UTF_8));
        ByteBuf escaped = Unpooled.directBuffer().writeBytes("43\ttab\\there\\\\x\t7\n".getBytes(StandardCharsets.UTF_8));
        ByteBuf response = Unpooled.buffer().writeByte(0).writeShort(3).writeShort(0).writeShort(0).writeShort(0);
        ByteBuf binResponse = Unpooled.buffer().writeByte(1).writeShort(3).writeShort(1).writeShort(1).writeShort(1);
        ByteBuf tuple = Unpooled.directBuffer().writeShort(3).writeInt(8).writeLong(42).writeInt(3).writeBytes("abc".getBytes())
                .writeInt(-1);
        CopyOutDecoder text = new CopyOutDecoder();
        CopyOutDecoder binary = new CopyOutDecoder();
        text.start(response, rel, false);
        binary.start(binResponse, rel, true);
        binary.decode(Unpooled.buffer().writeBytes(new byte[] {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0})
                .writeInt(0).writeInt(0), r -> { });
        CopyOutDecoder.RowHandler h = row -> sink += row.valueLength(1) + row.valueIndex(2) + (row.isNull(2) ? 1 : 0);
        int rounds = 100_000;
        for (int i = 0; i < rounds; i++) {
            text.decode(plain, h);
            text.decode(escaped, h);
            binary.decode(tuple, h);
        }
        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        for (int i = 0; i < rounds; i++) {
            text.decode(plain, h);
            text.decode(escaped, h);
            binary.decode(tuple, h);
        }
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        double perRow = allocated / (3.0 * rounds);
        System.out.printf("COPY row path: %d bytes over %d rows (%.4f B/row), sink %d%n", allocated, 3 * rounds, perRow, sink);
        assertTrue(perRow < 0.5, "allocated " + allocated + " bytes over " + 3 * rounds + " rows");
    }
}
