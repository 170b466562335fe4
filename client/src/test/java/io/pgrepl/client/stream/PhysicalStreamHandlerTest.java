package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.replication.XLogData;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PhysicalStreamHandlerTest {
    /** A CopyData payload 'w' walStart walEnd sendTime data, placed at an offset inside a larger buffer. */
    private static XLogData xlog(ByteBuf into, long walStart, long walEnd, long sendTime, String data) {
        into.writeBytes(new byte[7]); // the view must honour its offset
        int index = into.writerIndex();
        into.writeByte('w').writeLong(walStart).writeLong(walEnd).writeLong(sendTime)
                .writeBytes(data.getBytes(StandardCharsets.US_ASCII));
        into.writeBytes(new byte[5]); // and its length
        return new XLogData().wrap(into, index, into.writerIndex() - 5 - index);
    }

    @Test
    void sliceFaceGetsExactlyTheWalBytes() {
        List<String> got = new ArrayList<>();
        PhysicalStreamHandler h = new PhysicalStreamHandler() {
            @Override
            public void onWal(long walStart, long serverWalEnd, long sendTimeMicros, ByteBuf data) {
                got.add(walStart + "/" + serverWalEnd + "/" + sendTimeMicros + "/" + data.toString(StandardCharsets.US_ASCII));
            }
        };
        h.onWal(xlog(Unpooled.buffer(), 0x1000, 0x2000, 42, "walbytes"));
        assertEquals(List.of("4096/8192/42/walbytes"), got);
    }

    @Test
    void viewFaceReadsInPlace() {
        ByteBuf buf = Unpooled.buffer();
        XLogData x = xlog(buf, 0x1000, 0x2000, 42, "abc");
        List<String> got = new ArrayList<>();
        PhysicalStreamHandler h = new PhysicalStreamHandler() {
            @Override
            public void onWal(XLogData wal) {
                assertSame(buf, wal.buffer());
                got.add(wal.walStart() + ":" + wal.buffer().toString(wal.dataIndex(), wal.dataLength(), StandardCharsets.US_ASCII));
            }
        };
        h.onWal(x);
        assertEquals(List.of("4096:abc"), got);
    }

    @Test
    void aHandlerWithNoOnWalFailsClearly() {
        PhysicalStreamHandler h = new PhysicalStreamHandler() {};
        assertThrows(UnsupportedOperationException.class, () -> h.onWal(xlog(Unpooled.buffer(), 1, 1, 1, "x")));
    }
}
