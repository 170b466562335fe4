package io.pgrepl.codec.pgoutput;

import static org.junit.jupiter.api.Assertions.*;

import io.netty.buffer.Unpooled;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.pgoutput.record.*;
import io.pgrepl.codec.pgoutput.record.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.*;

class PgOutputPropertyTest {

    @Provide
    Arbitrary<List<PgOutputRecord>> streams() {
        return Arbitraries.randomValue(r -> new RandomStreams(r).stream());
    }

    /** Random records → test encoder → decoder + materialiser → the same records. */
    @Property(tries = 2000)
    void recordsRoundTrip(@ForAll("streams") List<PgOutputRecord> stream) {
        PgOutputDecoder decoder = new PgOutputDecoder();
        List<PgOutputRecord> decoded = new ArrayList<>();
        PgOutputHandler h = PgOutputRecords.collector(decoded::add);
        for (PgOutputRecord r : stream) decoder.decode(PgOutputTestEncoder.encode(r), h);
        assertEquals(stream, decoded);
    }

    /**
     * Truncated, bit-flipped, length-inflated and spliced messages either decode or raise
     * MalformedMessageException; any other exception fails the property. The handler reads every
     * field and value so lazy accessors are exercised too.
     */
    @Property(tries = 3000)
    void mutatedMessagesFailOnlyWithTypedErrors(@ForAll("streams") List<PgOutputRecord> stream, @ForAll long seed) {
        Random rnd = new Random(seed);
        PgOutputDecoder decoder = new PgOutputDecoder();
        PgOutputHandler reader = PgOutputRecords.collector(PgOutputPropertyTest::touch);
        for (PgOutputRecord r : stream) {
            byte[] b = PgOutputTestEncoder.bytes(r);
            byte[] m = rnd.nextInt(4) == 0 ? b : mutate(b, rnd);
            try {
                decoder.decode(Unpooled.wrappedBuffer(m), reader);
            } catch (MalformedMessageException expected) {
                assertNotNull(expected.messageType());
                assertTrue(expected.offset() >= 0 && expected.offset() <= m.length, expected.getMessage());
            }
        }
    }

    /** Arbitrary bytes after a known type byte, with relations cached so DML parsing runs deep. */
    @Property(tries = 3000)
    void randomBytesFailOnlyWithTypedErrors(@ForAll("typeBytes") byte type, @ForAll byte[] body, @ForAll boolean inStream) {
        PgOutputDecoder decoder = new PgOutputDecoder();
        for (int oid = 0; oid < 4; oid++) {
            List<ColumnInfo> cols = new ArrayList<>();
            for (int i = 0; i < oid; i++) cols.add(new ColumnInfo(i & 1, "c" + i, 25, -1));
            decoder.state().putRelation(new RelationInfo(oid, "", "r" + oid, 'd', cols));
        }
        if (inStream) decoder.state().enterStream(1);
        byte[] m = new byte[body.length + 1];
        m[0] = type;
        System.arraycopy(body, 0, m, 1, body.length);
        try {
            decoder.decode(Unpooled.wrappedBuffer(m), PgOutputRecords.collector(PgOutputPropertyTest::touch));
        } catch (MalformedMessageException expected) {
            assertTrue(expected.offset() >= 0 && expected.offset() <= m.length, expected.getMessage());
        }
    }

    @Provide
    Arbitrary<Byte> typeBytes() {
        return Arbitraries.oneOf(Arbitraries.of((byte) 'B', (byte) 'C', (byte) 'O', (byte) 'R', (byte) 'Y', (byte) 'I',
                (byte) 'U', (byte) 'D', (byte) 'T', (byte) 'M', (byte) 'S', (byte) 'E', (byte) 'c', (byte) 'A',
                (byte) 'b', (byte) 'P', (byte) 'K', (byte) 'r', (byte) 'p'), Arbitraries.bytes());
    }

    private static void touch(PgOutputRecord r) {
        // Decoding every value also runs the typed-value parsers over hostile bytes.
        Tuple[] tuples = r instanceof Insert i ? new Tuple[] {i.newTuple()}
                : r instanceof Update u ? new Tuple[] {u.oldTuple(), u.newTuple()}
                : r instanceof Delete d ? new Tuple[] {d.oldTuple()} : new Tuple[0];
        for (Tuple t : tuples) {
            if (t == null) continue;
            for (ColumnValue v : t.columns()) {
                try {
                    v.decode();
                } catch (MalformedMessageException ignored) {
                    // a typed error is the contract
                }
            }
        }
        assertNotNull(r.toString());
    }

    static byte[] mutate(byte[] b, Random rnd) {
        switch (rnd.nextInt(5)) {
            case 0: // truncate
                return java.util.Arrays.copyOf(b, rnd.nextInt(b.length + 1));
            case 1: { // flip bits
                byte[] c = b.clone();
                for (int k = 1 + rnd.nextInt(3); k > 0; k--) {
                    int i = rnd.nextInt(c.length);
                    c[i] ^= (byte) (1 << rnd.nextInt(8));
                }
                return c;
            }
            case 2: { // inflate a 2- or 4-byte window: lengths and counts become hostile
                byte[] c = b.clone();
                if (c.length < 5) return c;
                int i = 1 + rnd.nextInt(c.length - 4);
                int[] hostile = {0x7FFFFFFF, 0xFFFFFFFF, 0x80000000, 0x0000FFFF, 0x00010000, c.length};
                int v = hostile[rnd.nextInt(hostile.length)];
                if (rnd.nextBoolean()) {
                    c[i] = (byte) (v >>> 24);
                    c[i + 1] = (byte) (v >>> 16);
                    c[i + 2] = (byte) (v >>> 8);
                    c[i + 3] = (byte) v;
                } else {
                    c[i] = (byte) (v >>> 8);
                    c[i + 1] = (byte) v;
                }
                return c;
            }
            case 3: { // random bytes appended or inserted
                byte[] extra = new byte[1 + rnd.nextInt(8)];
                rnd.nextBytes(extra);
                int at = rnd.nextInt(b.length + 1);
                byte[] c = new byte[b.length + extra.length];
                System.arraycopy(b, 0, c, 0, at);
                System.arraycopy(extra, 0, c, at, extra.length);
                System.arraycopy(b, at, c, at + extra.length, b.length - at);
                return c;
            }
            default: { // random type byte on a valid body
                byte[] c = b.clone();
                c[0] = (byte) rnd.nextInt(256);
                return c;
            }
        }
    }
}
