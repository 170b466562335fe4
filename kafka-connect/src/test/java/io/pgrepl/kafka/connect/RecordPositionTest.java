package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Update;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.kafka.connect.records.ChangeRecords;
import io.pgrepl.kafka.connect.values.CatalogTypes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * A record's position inside its transaction must not depend on the
 * connector's configuration, or a restart that also changes tombstones.on.delete, the table
 * filter or the messages topic skips or repeats records of the transaction it stopped in. Each
 * case converts one transaction under one configuration, "stores" the offset of a record, and
 * converts the same transaction again under another configuration from that offset, as a
 * restarted task does (the builder's chunk loop included). Expected records are written out by hand.
 */
class RecordPositionTest {
    private static final long END = 0x1_0000_2000L;
    private static final int T = 16401;
    private static final int U = 16402;

    /** begin; insert t 1; delete t 2; insert u 3; message; update t key 4 -> 5; insert t 6; commit. */
    private static List<PgOutputRecord> transaction() {
        List<ColumnInfo> cols = List.of(new ColumnInfo(1, "id", 23, -1), new ColumnInfo(0, "v", 25, -1));
        return List.of(
                new Relation(0, T, "public", "t", 'd', cols),
                new Relation(0, U, "public", "u", 'd', cols),
                new Insert(7, T, row(1)),
                new Delete(7, T, 'K', row(2)),
                new Insert(7, U, row(3)),
                new Message(7, 1, END - 100, "p", "hello".getBytes(StandardCharsets.UTF_8)),
                new Update(7, T, 'K', row(4), row(5)),
                new Insert(7, T, row(6)));
    }

    private static Tuple row(int id) {
        return new Tuple(List.of(new ColumnValue("id", 23, ColumnKind.TEXT, Integer.toString(id).getBytes(StandardCharsets.UTF_8)),
                new ColumnValue("v", 25, ColumnKind.TEXT, "x".getBytes(StandardCharsets.UTF_8))));
    }

    private static PgreplConnectorConfig config(boolean tombstones, boolean messages, boolean onlyT) {
        Map<String, String> p = new HashMap<>();
        p.put(PgreplConnectorConfig.DATABASE_URL, "postgresql://127.0.0.1:5432/db");
        p.put(PgreplConnectorConfig.TOPIC_PREFIX, "pfx");
        p.put(PgreplConnectorConfig.TOMBSTONES_ON_DELETE, Boolean.toString(tombstones));
        // Messages go to <topic.prefix>.message unless a prefix list leaves them out.
        if (messages) p.put(PgreplConnectorConfig.MESSAGES_TOPIC, "msgs");
        else p.put(io.pgrepl.kafka.connect.settings.CaptureSettings.MESSAGE_PREFIX_EXCLUDE, ".*");
        if (onlyT) p.put(PgreplConnectorConfig.TABLE_INCLUDE_LIST, "public.t");
        return new PgreplConnectorConfig(p);
    }

    private static final PgreplConnectorConfig A = config(false, false, true);
    private static final PgreplConnectorConfig B = config(true, true, false);

    /** Converts the transaction as the task's builder does (one change per chunk), skipping what {@code from} covers. */
    private static List<SourceRecord> convert(PgreplConnectorConfig config, Position from) throws Exception {
        // built-in types only: no catalog needed
        ChangeRecords records = new ChangeRecords(config, Map.of("server", "pfx"), "db", CatalogTypes.of(), (oid, xid) -> null);
        records.begin(END, END - 8, 7, 0);
        List<SourceRecord> out = new ArrayList<>();
        Position built = from;
        for (PgOutputRecord r : transaction()) {
            records.accept(r, built, out::add);
            Position through = records.through();
            if (through != null) built = built.max(through);
        }
        return out;
    }

    private static String describe(SourceRecord r) {
        if (r.topic().equals("msgs")) return "m:" + ((Struct) r.key()).getString("prefix");
        String table = r.topic().substring(r.topic().lastIndexOf('.') + 1);
        int id = ((Struct) r.key()).getInt32("id");
        if (r.value() == null) return "tomb:" + table + id;
        Struct v = (Struct) r.value();
        return v.getString("op") + ":" + table + id;
    }

    private static List<String> describe(List<SourceRecord> rs) {
        return rs.stream().map(RecordPositionTest::describe).toList();
    }

    @SuppressWarnings("unchecked")
    private static Position stored(SourceRecord r) {
        return Position.fromOffset((Map<String, Object>) r.sourceOffset());
    }

    @Test
    void eachConfigurationConvertsTheWholeTransaction() throws Exception {
        assertEquals(List.of("c:t1", "d:t2", "d:t4", "c:t5", "c:t6"), describe(convert(A, Position.START)));
        assertEquals(List.of("c:t1", "d:t2", "tomb:t2", "c:u3", "m:p", "d:t4", "tomb:t4", "c:t5", "c:t6"),
                describe(convert(B, Position.START)));
    }

    @Test
    void tombstonesFilterAndMessagesTurnedOnDoNotRepeat() throws Exception {
        List<SourceRecord> first = convert(A, Position.START);
        SourceRecord last = first.get(2); // d:t4, the delete half of the key change
        assertEquals("d:t4", describe(last));
        // Under B the u row and the message came before it (not repeated); the key change's tombstone
        // and create follow it.
        assertEquals(List.of("tomb:t4", "c:t5", "c:t6"), describe(convert(B, stored(last))));
    }

    @Test
    void tombstonesFilterAndMessagesTurnedOffDoNotSkip() throws Exception {
        List<SourceRecord> first = convert(B, Position.START);
        SourceRecord last = first.get(4); // the message
        assertEquals("m:p", describe(last));
        assertEquals(List.of("d:t4", "c:t5", "c:t6"), describe(convert(A, stored(last))));
    }

    @Test
    void aTombstoneTurnedOnAfterItsDeleteWasWrittenStillFollows() throws Exception {
        SourceRecord last = convert(A, Position.START).get(1); // d:t2, no tombstone under A
        assertEquals(List.of("tomb:t2", "c:u3", "m:p", "d:t4", "tomb:t4", "c:t5", "c:t6"),
                describe(convert(B, stored(last))));
    }

    @Test
    void everyStoredOffsetResumesRightAfterItselfUnderTheSameConfiguration() throws Exception {
        for (PgreplConnectorConfig config : List.of(A, B)) {
            List<String> all = describe(convert(config, Position.START));
            List<SourceRecord> records = convert(config, Position.START);
            for (int k = 0; k < records.size(); k++) {
                assertEquals(all.subList(k + 1, all.size()), describe(convert(config, stored(records.get(k)))), "after " + k);
            }
        }
    }

    @Test
    void legacyOffsetsCountEmittedRecords() throws Exception {
        // Written before the format change: index 2 was the third record emitted (d:t4 under A).
        Position legacy = Position.fromOffset(Map.of(Position.LSN_COMMIT, END, Position.EVENT, 2));
        assertTrue(legacy.legacy());
        assertEquals(List.of("c:t5", "c:t6"), describe(convert(A, legacy)));
        // Records after it are stored in the new format.
        Map<String, ?> offset = convert(A, legacy).get(0).sourceOffset();
        assertEquals(3, offset.get(Position.EVENT), "the key change is row change 3");
        assertEquals(Position.PART_CREATE, offset.get(Position.EVENT_PART));
        assertFalse(stored(convert(A, legacy).get(0)).legacy());
    }

    @Test
    void positionsOrderAndRoundTrip() {
        Position p = Position.of(END, 3, Position.PART_TOMBSTONE);
        assertEquals(p, Position.fromOffset(new HashMap<>(p.toOffset())));
        assertTrue(p.covers(END, 3, Position.PART_MAIN, 99));
        assertTrue(p.covers(END, 2, Position.PART_MESSAGES + 5, 99));
        assertFalse(p.covers(END, 3, Position.PART_CREATE, 0));
        assertFalse(p.covers(END, 3, Position.PART_MESSAGES, 0), "a message after the change comes after all its parts");
        assertTrue(p.covers(END - 1, 100, 0, 100));
        assertFalse(p.covers(END + 1, -1, 0, 0));
        assertEquals(p, p.max(Position.of(END, 3, Position.PART_MAIN)));
        assertEquals(Position.of(END, 4, 0), p.max(Position.of(END, 4, 0)));
        assertEquals(p, p.max(new Position(END, 50)), "new format beats legacy in the same transaction");
        assertEquals(new Position(END + 1, 0), p.max(new Position(END + 1, 0)));
        assertFalse(Position.START.covers(1, -1, 0, 0));
        assertFalse(Position.fromOffset(Position.snapshotDone(END)).covers(END, 0, 0, 0), "nothing of the consistent point's transaction");
    }
}
