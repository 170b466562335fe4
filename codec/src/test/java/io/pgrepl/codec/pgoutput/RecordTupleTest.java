package io.pgrepl.codec.pgoutput;

import static io.pgrepl.codec.pgoutput.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import io.pgrepl.codec.pgoutput.record.Tuple;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A record tuple copied from a view keeps its values in one array: every kind and value reads back
 * as sent, and the copy holds the values (plus the few header bytes between them), never more.
 * Messages and expected sizes written by hand.
 */
class RecordTupleTest {
    private final PgOutputDecoder decoder = new PgOutputDecoder();

    RecordTupleTest() {
        decoder.decode(PgOutputTestEncoder.encode(USERS_RELATION), new PgOutputHandler() {});
    }

    /** Insert into users: id '42' (text), name NULL, bio unchanged TOAST, avatar 00 ff (binary). */
    private Tuple inserted() {
        ByteBuf m = hex("49 00004000 4E 0004  74 00000002 3432  6E  75  62 00000002 00ff");
        return ((Insert) PgOutputRecords.decode(decoder, m)).newTuple();
    }

    @Test
    void everyKindReadsBackAsSent() {
        Tuple t = inserted();
        assertEquals(4, t.size());
        assertEquals("id", t.name(0));
        assertEquals(20, t.typeOid(0));
        assertEquals(ColumnKind.TEXT, t.kind(0));
        assertEquals("42", t.text(0));
        assertEquals(42L, t.decode(0));
        assertEquals(ColumnKind.NULL, t.kind(1));
        assertEquals(-1, t.valueLength(1));
        assertNull(t.bytes(1));
        assertNull(t.decode(1));
        assertEquals(ColumnKind.UNCHANGED_TOAST, t.kind(2));
        assertEquals(-1, t.valueOffset(2));
        assertEquals(ColumnKind.BINARY, t.kind(3));
        assertArrayEquals(new byte[] {0, (byte) 0xff}, t.bytes(3));
        assertEquals((byte) 0xff, t.array()[t.valueOffset(3) + 1]);
        assertThrows(IndexOutOfBoundsException.class, () -> t.kind(4));
    }

    @Test
    void columnValuesEqualTheSameTupleBuiltByHand() {
        Tuple byHand = tuple(text("id", 20, "42"), kind("name", 25, ColumnKind.NULL),
                kind("bio", 25, ColumnKind.UNCHANGED_TOAST), binary("avatar", 17, 0, 0xff));
        Tuple t = inserted();
        assertEquals(byHand, t);
        assertEquals(byHand.hashCode(), t.hashCode());
        assertEquals(byHand.columns(), t.columns());
        assertArrayEquals(new byte[] {0, (byte) 0xff}, t.get("avatar").bytes());
        assertSame(t.get(3), t.get(3), "a column is built once");
        assertNull(t.get("nope"));
        assertEquals("Tuple[columns=[id:TEXT(2 bytes), name:NULL, bio:UNCHANGED_TOAST, avatar:BINARY(2 bytes)]]",
                t.toString());
        assertEquals("42", byHand.text(0));
        assertEquals(ColumnKind.UNCHANGED_TOAST, byHand.kind(2));
        assertEquals("bio", byHand.name(2));
    }

    @Test
    void oneCopyOfTheSpanBetweenTheFirstAndLastValue() {
        // 4 kind bytes + "42" + 'n' + 'u' + 'b' + Int32 length + 00 ff = 4 + 11
        assertEquals(15, inserted().array().length);
    }

    @Test
    void valuesFarApartAreCopiedOneByOne() {
        ByteBuf buf = Unpooled.buffer(10_000).writeZero(10_000);
        buf.setBytes(9_000, "77".getBytes(StandardCharsets.US_ASCII));
        buf.setBytes(10, "hello".getBytes(StandardCharsets.US_ASCII));
        TupleFiller f = new TupleFiller();
        f.reset(buf, decoder.state().relation(USERS), 4);
        f.value(0, false, 9_000, 2);
        f.value(1, false, 10, 5);
        f.nullValue(2);
        f.nullValue(3);
        Tuple t = PgOutputRecords.tuple(f.view());
        assertEquals(4 + 2 + 5, t.array().length, "kinds and the two values only, not the 9 kB between them");
        assertEquals("77", t.text(0));
        assertEquals("hello", t.text(1));
        assertEquals(ColumnKind.NULL, t.kind(3));
    }
}
