package io.pgrepl.flink.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.flink.PgChange;
import io.pgrepl.flink.TableName;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint formats: a stream split stopped for tables to be read again, with held removals
 * (NULL and absent columns told apart), comes back from its bytes as it went in; the enumerator's
 * state with a suspension too.
 */
class SerializersTest {
    private static final TableName T = new TableName("Sales", "Order Items");

    private static HeldDelete held() {
        Tuple old = new Tuple(List.of(
                new ColumnValue("id", 23, ColumnKind.TEXT, "7".getBytes(StandardCharsets.UTF_8)),
                new ColumnValue("note", 1043, ColumnKind.NULL, null),
                new ColumnValue("memo", 25, ColumnKind.ABSENT, null)));
        return HeldDelete.of(T, List.of("7"), old, false, 901, 0x16B3748L, 123_456L);
    }

    private static StreamSplit split() {
        Map<TableName, List<Piece>> coverage = Map.of(T, List.of(new Piece(List.of("100"), "900:905:901,903", 0x16B0000L),
                new Piece(null, "904:910:", 0x16B1000L, true)));
        return new StreamSplit(0x16B2000L, 0, 0, 0, coverage, Set.of(T), List.of(held()), 2,
                new Resnapshot(List.of(T, new TableName("public", "b")), false));
    }

    @Test
    void aSuspendedStreamSplitWithHeldRemovalsRoundTrips() throws Exception {
        StreamSplit in = split();
        StreamSplit out = (StreamSplit) SplitSerializer.INSTANCE.deserialize(SplitSerializer.INSTANCE.getVersion(),
                SplitSerializer.INSTANCE.serialize(in));
        assertEquals(in.lsn(), out.lsn());
        assertEquals(in.coverage(), out.coverage());
        assertEquals(Set.of(T), out.reread());
        assertEquals(2, out.epoch());
        assertEquals(in.suspended(), out.suspended());
        HeldDelete h = out.held().get(0);
        assertEquals(List.of("7"), h.key());
        PgChange d = h.change();
        assertEquals(PgChange.Op.DELETE, d.op());
        assertEquals("7", d.before().text(0));
        assertEquals(ColumnKind.NULL, d.before().kind(1));
        assertEquals(ColumnKind.ABSENT, d.before().kind(2));
        assertArrayEquals(new int[] {23, 1043, 25}, h.oids());
        assertEquals(0x16B3748L, d.commitLsn());
        assertNull(d.after());
    }

    @Test
    void piecesReadAgainAfterAFailureKeepTheirMark() throws Exception {
        SnapshotSplit in = new SnapshotSplit("t#1", T, 1, List.of("id"), List.of("100"), null,
                List.of(new Piece(List.of("150"), "900:905:", 0x16B0000L), new Piece(List.of("180"), "906:906:", 0x16B1000L, true)),
                false, true);
        SnapshotSplit out = (SnapshotSplit) SplitSerializer.INSTANCE.deserialize(SplitSerializer.INSTANCE.getVersion(),
                SplitSerializer.INSTANCE.serialize(in));
        assertEquals(in, out);
        assertEquals(List.of(false, true), out.pieces().stream().map(Piece::again).toList());
        assertEquals(true, out.again());
        StreamSplit stream = (StreamSplit) SplitSerializer.INSTANCE.deserialize(SplitSerializer.INSTANCE.getVersion(),
                SplitSerializer.INSTANCE.serialize(split()));
        assertEquals(List.of(false, true), stream.coverage().get(T).stream().map(Piece::again).toList());
        EnumeratorState state = new EnumeratorState(true, 5, 0, 3, List.of(in), Map.of(in.id(), in), false, false, null, null, 0, false);
        EnumeratorState back = EnumeratorStateSerializer.INSTANCE.deserialize(EnumeratorStateSerializer.INSTANCE.getVersion(),
                EnumeratorStateSerializer.INSTANCE.serialize(state));
        assertEquals(in, back.pending().get(0));
        assertEquals(in, back.finished().get(in.id()));
    }

    @Test
    void enumeratorStateWithASuspensionRoundTrips() throws Exception {
        EnumeratorState in = new EnumeratorState(true, 5, 0, 3, List.of(), Map.of(), true, false, null, split(), 2, true);
        EnumeratorState out = EnumeratorStateSerializer.INSTANCE.deserialize(EnumeratorStateSerializer.INSTANCE.getVersion(),
                EnumeratorStateSerializer.INSTANCE.serialize(in));
        assertEquals(in.suspended().suspended(), out.suspended().suspended());
        assertEquals(2, out.epoch());
        assertEquals(true, out.replanned());
        assertEquals(false, out.streamAssigned());
    }
}
