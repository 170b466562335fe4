package io.pgrepl.codec.pgoutput;

import static io.pgrepl.codec.pgoutput.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.pgoutput.record.*;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class PgOutputDecoderTest {
    private final PgOutputDecoder decoder = new PgOutputDecoder();
    private final List<PgOutputRecord> out = new ArrayList<>();
    private final PgOutputHandler collect = PgOutputRecords.collector(out::add);

    private PgOutputRecord roundTrip(PgOutputRecord r) {
        out.clear();
        decoder.decode(PgOutputTestEncoder.encode(r), collect);
        assertEquals(1, out.size());
        return out.get(0);
    }

    private void decodeHex(String hex, PgOutputHandler h) {
        decoder.decode(hex(hex), h);
    }

    /**
     * Decodes {@code bytes} and asserts that exactly one callback ran, the named one, with a view
     * of exactly {@code type}; {@code check} runs inside it (views are valid only there).
     */
    private <M extends PgOutputMessage> void expectOne(ByteBuf bytes, String callback, Class<M> type, Consumer<M> check) {
        List<String> calls = new ArrayList<>();
        PgOutputHandler h = (PgOutputHandler) Proxy.newProxyInstance(PgOutputHandler.class.getClassLoader(),
                new Class<?>[] {PgOutputHandler.class}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.getName().equals("equals") ? proxy == args[0]
                                : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : "expectOne";
                    }
                    calls.add(method.getName());
                    assertEquals(type, args[0].getClass(), method.getName());
                    check.accept(type.cast(args[0]));
                    return null;
                });
        decoder.decode(bytes, h);
        assertEquals(List.of(callback), calls, "callbacks that ran");
    }

    @Test
    void beginFromHandWrittenBytes() {
        // B, final_lsn 0/16B3748, commit time 2024-01-02 03:04:05.123456 UTC, xid 745
        long micros = PgTime.fromInstant(Instant.parse("2024-01-02T03:04:05.123456Z"));
        String hex = "42" + "00000000016B3748" + String.format("%016x", micros) + "000002E9";
        BeginMessage[] seen = new BeginMessage[1];
        decodeHex(hex, new PgOutputHandler() {
            @Override
            public void onBegin(BeginMessage m) {
                seen[0] = m;
                assertEquals(0x16B3748L, m.finalLsn());
                assertEquals(Instant.parse("2024-01-02T03:04:05.123456Z"), m.commitTime());
                assertEquals(745, m.xid());
                assertEquals(21, m.length());
            }
        });
        assertNotNull(seen[0]);
        assertEquals(hex.toLowerCase(), ByteBufUtil.hexDump(PgOutputTestEncoder.encode(new Begin(0x16B3748L, micros, 745))));
    }

    @Test
    void unsignedXidAndLargeLsn() {
        Begin b = new Begin(0xFFFF_FFFF_0000_0001L, -1, 0xFFFF_FFF0L);
        assertEquals(b, roundTrip(b));
    }

    @Test
    void commitAndNonZeroFlagsAreExposed() {
        Commit c = new Commit(0, 100, 200, 300);
        assertEquals(c, roundTrip(c));
        Commit future = new Commit(0x80, 1, 2, 3);
        assertEquals(future, roundTrip(future));
    }

    @Test
    void commitFieldOrder() {
        // C, flags 0, commit_lsn 0/10, end_lsn 0/20, time 0x30
        expectOne(hex("43 00 0000000000000010 0000000000000020 0000000000000030"), "onCommit", CommitMessage.class, m -> {
            assertEquals(0x10, m.commitLsn());
            assertEquals(0x20, m.endLsn());
            assertEquals(0x30, m.commitTimeMicros());
        });
    }

    @Test
    void origin() {
        Origin o = new Origin(77, "pg_16395");
        assertEquals(o, roundTrip(o));
        expectOne(PgOutputTestEncoder.encode(o), "onOrigin", OriginMessage.class, m -> {
            assertTrue(m.nameEquals("pg_16395"));
            assertFalse(m.nameEquals("pg_1639"));
            assertEquals("pg_16395", m.nameBytes().toString(StandardCharsets.UTF_8));
        });
    }

    @Test
    void relationIsCachedAndOverwritten() {
        assertEquals(USERS_RELATION, roundTrip(USERS_RELATION));
        RelationInfo info = decoder.state().relation(USERS);
        assertEquals("users", info.name());
        assertEquals("public", info.schema());
        assertEquals(4, info.columnCount());
        assertEquals(1, info.keyColumnCount());
        assertEquals(0, info.keyColumnIndex(0));
        assertTrue(info.column(0).isKey());
        assertEquals(20, info.column(0).typeOid());

        Relation altered = new Relation(0, USERS, "", "users", 'f', List.of(new ColumnInfo(1, "id", 23, -1)));
        roundTrip(altered);
        assertEquals(1, decoder.state().relation(USERS).columnCount());
        assertEquals("pg_catalog", decoder.state().relation(USERS).schema());
        assertEquals('f', decoder.state().relation(USERS).replicaIdentity());
    }

    @Test
    void relationWithZeroColumnsAndTypmod() {
        Relation r = new Relation(0, 5, "s", "empty", 'n', List.of());
        assertEquals(r, roundTrip(r));
        Relation v = new Relation(0, 6, "s", "v", 'd', List.of(new ColumnInfo(0, "c", 1043, 14)));
        assertEquals(v, roundTrip(v));
    }

    @Test
    void type() {
        Type t = new Type(0, 16500, "public", "mood");
        assertEquals(t, roundTrip(t));
        assertEquals("mood", decoder.state().type(16500).name());
    }

    @Test
    void insertTextBinaryNullToast() {
        roundTrip(USERS_RELATION);
        Insert ins = new Insert(0, USERS, tuple(
                binary("id", 20, 0, 0, 0, 0, 0, 0, 0, 42),
                text("name", 25, "Zoë"),
                kind("bio", 25, ColumnKind.NULL),
                kind("avatar", 17, ColumnKind.UNCHANGED_TOAST)));
        assertEquals(ins, roundTrip(ins));
        expectOne(PgOutputTestEncoder.encode(ins), "onInsert", InsertMessage.class, m -> {
            TupleView t = m.newTuple();
            assertSame(decoder.state().relation(USERS), m.relation());
            assertEquals(4, t.columnCount());
            assertEquals(42L, t.int8(0));
            assertEquals(ColumnKind.BINARY, t.kind(0));
            assertEquals(8, t.valueLength(0));
            assertEquals(42L, t.buffer().getLong(t.valueIndex(0)));
            assertEquals("Zoë", t.text(1));
            assertEquals("Zoë", t.value(1).toString(StandardCharsets.UTF_8));
            assertTrue(t.isNull(2));
            assertNull(t.decode(2));
            assertEquals(-1, t.valueIndex(2));
            assertTrue(t.isUnchangedToast(3));
            assertFalse(t.isNull(3));
            assertThrows(IllegalStateException.class, () -> t.decode(3));
            assertEquals(42L, t.decode(0));
            assertThrows(IndexOutOfBoundsException.class, () -> t.kind(4));
        });
    }

    @Test
    void updateWithoutOldTuple() {
        roundTrip(USERS_RELATION);
        Update u = new Update(0, USERS, (char) 0, null, tuple(text("id", 20, "1"), text("name", 25, "a"),
                kind("bio", 25, ColumnKind.UNCHANGED_TOAST), kind("avatar", 17, ColumnKind.NULL)));
        assertEquals(u, roundTrip(u));
    }

    @Test
    void keyTupleNonKeyColumnsAreAbsentNotNull() {
        roundTrip(USERS_RELATION);
        // On the wire the server sends 'n' for every non-key column of a 'K' tuple.
        Update u = new Update(0, USERS, 'K', tuple(text("id", 20, "1"), kind("name", 25, ColumnKind.ABSENT),
                kind("bio", 25, ColumnKind.ABSENT), kind("avatar", 17, ColumnKind.ABSENT)),
                tuple(text("id", 20, "2"), text("name", 25, "a"), kind("bio", 25, ColumnKind.NULL),
                        kind("avatar", 17, ColumnKind.NULL)));
        assertEquals(u, roundTrip(u));
        expectOne(PgOutputTestEncoder.encode(u), "onUpdate", UpdateMessage.class, m -> {
            assertEquals('K', m.oldTupleKind());
            assertTrue(m.oldTuple().isKeyOnly());
            assertFalse(m.oldTuple().isPresent(1));
            assertFalse(m.oldTuple().isNull(1));
            assertTrue(m.oldTuple().isPresent(0));
            assertTrue(m.newTuple().isNull(2));
            assertFalse(m.newTuple().isKeyOnly());
        });
    }

    @Test
    void keyTupleNullInKeyColumnStaysNull() {
        roundTrip(USERS_RELATION);
        Delete d = new Delete(0, USERS, 'K', tuple(kind("id", 20, ColumnKind.NULL), kind("name", 25, ColumnKind.ABSENT),
                kind("bio", 25, ColumnKind.ABSENT), kind("avatar", 17, ColumnKind.ABSENT)));
        assertEquals(d, roundTrip(d));
    }

    @Test
    void oldRowTupleNullsAreRealNulls() {
        roundTrip(USERS_RELATION);
        Delete d = new Delete(0, USERS, 'O', tuple(text("id", 20, "1"), kind("name", 25, ColumnKind.NULL),
                kind("bio", 25, ColumnKind.NULL), text("avatar", 17, "\\x00")));
        assertEquals(d, roundTrip(d));
        Update u = new Update(0, USERS, 'O', d.oldTuple(), d.oldTuple());
        assertEquals(u, roundTrip(u));
    }

    @Test
    void truncate() {
        Truncate t = new Truncate(0, TruncateMessage.OPTION_CASCADE | TruncateMessage.OPTION_RESTART_IDENTITY,
                List.of(1, 2, -5));
        assertEquals(t, roundTrip(t));
        roundTrip(USERS_RELATION);
        expectOne(PgOutputTestEncoder.encode(new Truncate(0, 0, List.of(USERS, 99))), "onTruncate", TruncateMessage.class, m -> {
            assertFalse(m.cascade());
            assertEquals("users", m.relation(0).name());
            assertNull(m.relation(1));
        });
    }

    @Test
    void logicalMessage() {
        Message m = new Message(0, 1, 0x1234, "audit", new byte[] {1, 2, 0, 3});
        assertEquals(m, roundTrip(m));
        Message empty = new Message(0, 0, 5, "", new byte[0]);
        assertEquals(empty, roundTrip(empty));
        expectOne(PgOutputTestEncoder.encode(m), "onMessage", LogicalMessage.class, v -> {
            assertTrue(v.transactional());
            assertTrue(v.prefixEquals("audit"));
            assertEquals(4, v.content().readableBytes());
        });
    }

    @Test
    void streamBlockAddsXidPrefix() {
        Relation r = new Relation(700, USERS, "public", "users", 'd', USERS_RELATION.columns());
        Insert ins = new Insert(701, USERS, tuple(text("id", 20, "1"), kind("name", 25, ColumnKind.NULL),
                kind("bio", 25, ColumnKind.NULL), kind("avatar", 17, ColumnKind.NULL)));
        List<PgOutputRecord> seq = List.of(new StreamStart(700, 1), r, new Type(700, 1, "", "t"), ins,
                new Truncate(701, 0, List.of(USERS)), new Message(700, 1, 9, "p", new byte[] {7}), new StreamStop(),
                new StreamCommit(700, 0, 10, 20, 30));
        out.clear();
        for (PgOutputRecord rec : seq) decoder.decode(PgOutputTestEncoder.encode(rec), collect);
        assertEquals(seq, out);
        assertFalse(decoder.state().inStreamBlock());
    }

    @Test
    void xidPrefixOnlyInsideStreamBlock() {
        roundTrip(new StreamStart(9, 0));
        assertTrue(decoder.state().inStreamBlock());
        assertEquals(9, decoder.state().streamXid());
        // Outside a block the same bytes without prefix would be misread: the state decides.
        Relation r = new Relation(9, 1, "a", "b", 'd', List.of());
        assertEquals(r, roundTrip(r));
        roundTrip(new StreamStop());
        Relation plain = new Relation(0, 1, "a", "b", 'd', List.of());
        assertEquals(plain, roundTrip(plain));
    }

    @Test
    void streamAbortShortAndLong() {
        StreamAbort shortForm = new StreamAbort(10, 11, false, 0, 0);
        assertEquals(shortForm, roundTrip(shortForm));
        StreamAbort longForm = new StreamAbort(10, 10, true, 0xABC, 0xDEF);
        assertEquals(longForm, roundTrip(longForm));
        expectOne(PgOutputTestEncoder.encode(shortForm), "onStreamAbort", StreamAbortMessage.class, m -> {
            assertTrue(m.isSubtransactionAbort());
            assertNull(m.abortTime());
        });
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> decodeHex("41 0000000A 0000000A 00000000", collect));
        assertTrue(e.getMessage().contains("Stream Abort"), e.getMessage());
    }

    @Test
    void twoPhase() {
        List<PgOutputRecord> seq = List.of(new BeginPrepare(100, 200, 300, 400, "gid-1"),
                new Prepare(0, 100, 200, 300, 400, "gid-1"),
                new CommitPrepared(0, 500, 600, 700, 400, "gid-1"),
                new RollbackPrepared(0, 200, 800, 300, 900, 401, "gid-2"),
                new StreamPrepare(0, 1, 2, 3, 4, "ü-gid"));
        for (PgOutputRecord r : seq) assertEquals(r, roundTrip(r));
    }

    @Test
    void rollbackPreparedFieldOrder() {
        String hex = "72 00 0000000000000001 0000000000000002 0000000000000003 0000000000000004 00000005 6700";
        expectOne(hex(hex), "onRollbackPrepared", RollbackPreparedMessage.class, m -> {
            assertEquals(1, m.prepareEndLsn());
            assertEquals(2, m.rollbackEndLsn());
            assertEquals(3, m.prepareTimeMicros());
            assertEquals(4, m.rollbackTimeMicros());
            assertEquals(5, m.xid());
            assertEquals("g", m.gid());
        });
    }

    @Test
    void beginPrepareHasNoFlagsByte() {
        String hex = "62 0000000000000001 0000000000000002 0000000000000003 00000004 676964 00";
        expectOne(hex(hex), "onBeginPrepare", BeginPrepareMessage.class, m -> {
            assertEquals(1, m.prepareLsn());
            assertEquals(4, m.xid());
            assertTrue(m.gidEquals("gid"));
        });
    }

    @Test
    void readerIndexIsNotMoved() {
        ByteBuf b = PgOutputTestEncoder.encode(new Commit(0, 1, 2, 3));
        decoder.decode(b, collect);
        assertEquals(0, b.readerIndex());
    }

    @Test
    void decodesARangeOfALargerBuffer() {
        ByteBuf msg = PgOutputTestEncoder.encode(new Origin(1, "x"));
        int len = msg.readableBytes();
        ByteBuf big = Unpooled.buffer().writeBytes(new byte[] {9, 9, 9}).writeBytes(msg).writeBytes(new byte[] {'B', 0});
        out.clear();
        decoder.decode(big, 3, len, collect);
        assertEquals(List.of(new Origin(1, "x")), out);
    }

    // ---- malformed input ----

    @Test
    void unknownTypeIsTypedAndNamesTheByte() {
        UnknownMessageTypeException e = assertThrows(UnknownMessageTypeException.class, () -> decodeHex("5A00", collect));
        assertEquals('Z', e.typeByte());
        assertEquals(0, e.offset());
        assertTrue(e.getMessage().contains("'Z'"), e.getMessage());
    }

    @Test
    void emptyMessage() {
        assertThrows(MalformedMessageException.class, () -> decoder.decode(Unpooled.EMPTY_BUFFER, collect));
    }

    @Test
    void dmlForUnknownRelation() {
        Insert ins = new Insert(0, 4242, tuple());
        UnknownRelationException e = assertThrows(UnknownRelationException.class,
                () -> decoder.decode(PgOutputTestEncoder.encode(ins), collect));
        assertEquals(4242, e.relationOid());
        assertEquals(1, e.offset());
    }

    @Test
    void columnCountMustMatchRelation() {
        roundTrip(USERS_RELATION);
        Insert ins = new Insert(0, USERS, tuple(text("id", 20, "1")));
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> decoder.decode(PgOutputTestEncoder.encode(ins), collect));
        assertTrue(e.reason().contains("1 columns but relation 16384 has 4"), e.reason());
    }

    @Test
    void invalidColumnKind() {
        roundTrip(new Relation(0, 1, "", "r", 'd', List.of(new ColumnInfo(0, "c", 25, -1))));
        // I, rel 1, N, ncols 1, kind 'x'
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> decodeHex("49 00000001 4E 0001 78", collect));
        assertEquals(8, e.offset());
        assertTrue(e.getMessage().startsWith("malformed Insert ('I')"), e.getMessage());
    }

    @Test
    void invalidTupleMarkers() {
        roundTrip(new Relation(0, 1, "", "r", 'd', List.of()));
        assertThrows(MalformedMessageException.class, () -> decodeHex("49 00000001 4B 0000", collect));
        assertThrows(MalformedMessageException.class, () -> decodeHex("44 00000001 4E 0000", collect));
        assertThrows(MalformedMessageException.class, () -> decodeHex("55 00000001 4B 0000 4F 0000", collect));
        assertThrows(MalformedMessageException.class, () -> decodeHex("55 00000001 4B 0000", collect));
    }

    @Test
    void hostileLengthsDoNotAllocateOrOverread() {
        roundTrip(new Relation(0, 1, "", "r", 'd', List.of(new ColumnInfo(0, "c", 25, -1))));
        // value length 0x7fffffff
        assertThrows(MalformedMessageException.class, () -> decodeHex("49 00000001 4E 0001 74 7FFFFFFF 41", collect));
        // negative value length
        assertThrows(MalformedMessageException.class, () -> decodeHex("49 00000001 4E 0001 74 FFFFFFFF", collect));
        // relation with 65535 columns in a few bytes
        assertThrows(MalformedMessageException.class, () -> decodeHex("52 00000002 00 00 64 FFFF 00", collect));
        // truncate with 2^31-1 relations
        assertThrows(MalformedMessageException.class, () -> decodeHex("54 7FFFFFFF 00 00000001", collect));
        assertThrows(MalformedMessageException.class, () -> decodeHex("54 FFFFFFFF 00", collect));
        // message content length beyond the end
        assertThrows(MalformedMessageException.class, () -> decodeHex("4D 01 0000000000000001 7000 00000010 41", collect));
        // string without terminator
        assertThrows(MalformedMessageException.class, () -> decodeHex("4F 0000000000000001 4142", collect));
    }

    @Test
    void truncatedFixedMessages() {
        for (PgOutputRecord r : List.of(new Begin(1, 2, 3), new Commit(0, 1, 2, 3), new StreamStart(1, 1),
                new StreamCommit(1, 0, 2, 3, 4), new Prepare(0, 1, 2, 3, 4, "g"))) {
            byte[] b = PgOutputTestEncoder.bytes(r);
            for (int len = 1; len < b.length; len++) {
                ByteBuf cut = Unpooled.wrappedBuffer(b, 0, len);
                MalformedMessageException e = assertThrows(MalformedMessageException.class, () -> decoder.decode(cut, collect),
                        r + " cut to " + len);
                assertTrue(e.offset() >= 0 && e.offset() <= len, e.getMessage());
            }
        }
    }

    @Test
    void stateUnchangedWhenARelationIsMalformed() {
        roundTrip(USERS_RELATION);
        byte[] b = PgOutputTestEncoder.bytes(new Relation(0, USERS, "x", "y", 'f', List.of(new ColumnInfo(0, "c", 1, 1))));
        assertThrows(MalformedMessageException.class, () -> decoder.decode(Unpooled.wrappedBuffer(b, 0, b.length - 2), collect));
        assertEquals("users", decoder.state().relation(USERS).name());
    }

    @Test
    void resetForgetsEverything() {
        roundTrip(USERS_RELATION);
        roundTrip(new StreamStart(1, 1));
        decoder.state().reset();
        assertNull(decoder.state().relation(USERS));
        assertFalse(decoder.state().inStreamBlock());
    }
}
