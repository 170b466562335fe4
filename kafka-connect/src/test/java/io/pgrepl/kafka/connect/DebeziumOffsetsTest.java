package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.PostgresOffsetContext;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.SlotLostHandling;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.SnapshotMode;
import io.pgrepl.kafka.connect.StartPlan.Action;
import io.pgrepl.kafka.connect.StartPlan.Slot;
import io.pgrepl.kafka.connect.offsets.DebeziumOffsets;
import io.pgrepl.kafka.connect.offsets.Position;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

/**
 * Offsets across the two connectors, both ways: pgrepl's as Debezium 3.6.1's own offset loader reads
 * them (its {@code PostgresOffsetContext.Loader}, after the JSON round trip of Connect's offset
 * store), and Debezium's, literal as its 3.6.1 connector stores them, as pgrepl reads them.
 */
class DebeziumOffsetsTest {
    private static final long P = 0x1_0000_1000L;
    private static final long E = 0x1_0000_2000L;
    private static final long XID = 771;
    private static final long MICROS = 1_767_225_600_123_456L;
    /** A pgrepl incremental state as its engine stores it: one table running (a range), one queued. */
    private static final String STATE = "pgrepl-inc 1\nt public.orders - -\nr - - 41 0\nt s1.%22Odd%20Name%22 id+%3C+100 -";

    /** Connect's offset store: JSON without schemas, numbers come back as Long. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> stored(Map<String, ?> offset) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "false"), false);
        byte[] bytes = c.fromConnectData("offsets", null, offset);
        return (Map<String, Object>) c.toConnectData("offsets", bytes).value();
    }

    private static PostgresOffsetContext debezium(Map<String, ?> offset) {
        Configuration cfg = Configuration.create().with("topic.prefix", "t").with("database.hostname", "127.0.0.1")
                .with("database.user", "u").with("database.dbname", "postgres").with("plugin.name", "pgoutput").build();
        return new PostgresOffsetContext.Loader(new PostgresConnectorConfig(cfg)).load(stored(offset));
    }

    @Test
    void debeziumResumesAfterTheLastTransactionAPgreplRecordCoversWholly() {
        // A record inside transaction E (ending at E) after P: Debezium resumes after P, E again from its start.
        PostgresOffsetContext mid = debezium(Position.record(E, 3, Position.PART_MAIN, P, XID, MICROS));
        assertEquals(P, mid.lastCommitLsn().asLong());
        assertEquals(P, mid.asOffsetState().lastSeenLsn().asLong(), "streams from lsn");
        assertNull(mid.lastCompletelyProcessedLsn(), "no lsn_proc: Debezium does not search for a change position");
        assertEquals(XID, mid.asOffsetState().lastSeenTxId());
        assertEquals(MICROS / 1000, mid.asOffsetState().lastCommitTs().toEpochMilli());
        assertFalse(mid.isInitialSnapshotRunning());
        // E's last record (StreamBuilder names E done on it), and a heartbeat's position.
        Map<String, Object> last = new HashMap<>(Position.record(E, 9, Position.PART_TOMBSTONE, P, XID, MICROS));
        DebeziumOffsets.putCommit(last, E, 0, 0);
        assertEquals(E, debezium(last).lastCommitLsn().asLong());
        assertEquals(E, debezium(Position.of(E, 9, 1, E).toOffset()).lastCommitLsn().asLong());
        // The first transaction after a start whose predecessor is not known: Debezium streams from the slot.
        PostgresOffsetContext unknown = debezium(Position.record(E, 0, 0, 0, XID, MICROS));
        assertNull(unknown.lastCommitLsn());
        assertNull(unknown.asOffsetState().lastSeenLsn());
    }

    @Test
    void debeziumSeesPgreplsCopyAsItsOwnInitialSnapshot() {
        assertTrue(debezium(Position.snapshotRead(P, 41)).isInitialSnapshotRunning(), "an interrupted copy is copied again");
        PostgresOffsetContext done = debezium(Position.snapshotDone(P));
        assertFalse(done.isInitialSnapshotRunning());
        assertEquals(P, done.lastCommitLsn().asLong());
        assertEquals(P, done.asOffsetState().lastSeenLsn().asLong());
    }

    @Test
    void debeziumContinuesPgreplsIncrementalSnapshotsFromTheirTablesStarts() {
        Map<String, Object> read = Position.incrementalRead(Position.of(E, 2, 0, P), STATE);
        var collections = debezium(read).getIncrementalSnapshotContext().getDataCollections();
        assertEquals(List.of("public/orders", "s1/Odd Name"), collections.stream()
                .map(d -> ((io.debezium.relational.TableId) d.getId()).schema() + "/" + ((io.debezium.relational.TableId) d.getId()).table())
                .toList());
        assertEquals("(id < 100)", collections.get(1).getAdditionalCondition().orElse(null), "Debezium brackets a condition it loads");
        assertTrue(debezium(Position.withState(Position.record(E, 0, 0, P, XID, MICROS), STATE))
                .getIncrementalSnapshotContext().snapshotRunning());
        assertFalse(debezium(Position.record(E, 0, 0, P, XID, MICROS)).getIncrementalSnapshotContext().snapshotRunning());
        // pgrepl reads its own keys back.
        assertEquals(Position.of(E, 2, 0, P), Position.fromOffset(stored(read)));
        assertEquals(STATE, Position.incrementalState(stored(read)));
    }

    // ---- Debezium's offsets, as its 3.6.1 connector stores them

    /** A streaming record's offset: an update inside the transaction after the one ending at P. */
    private static final String STREAMING = """
            {"transaction_id":null,"lsn_proc":4294975512,"messageType":"UPDATE","lsn":4294975512,"txId":812,
             "ts_usec":1767225600123456,"lsn_commit":4294971392}""";
    /** A read of its initial snapshot, not the last. */
    private static final String SNAPSHOT_READ = """
            {"last_snapshot_record":false,"lsn":4294971392,"txId":790,"ts_usec":1767225600000000,
             "snapshot":"INITIAL","snapshot_completed":false}""";
    /** Its snapshot's last read. */
    private static final String SNAPSHOT_LAST = """
            {"last_snapshot_record":true,"lsn":4294971392,"txId":790,"ts_usec":1767225600000000,
             "snapshot":"INITIAL","snapshot_completed":true}""";
    /** A record of an incremental snapshot in progress (two tables still to read). */
    private static final String INCREMENTAL = """
            {"transaction_id":null,"incremental_snapshot_correlation_id":null,"lsn_proc":4294975512,
             "incremental_snapshot_maximum_key":"aced0005757200135b4c6a6176612e6c616e672e4f626a6563743b90ce589f1073296c020000787000000001737200116a6176612e6c616e672e496e746567657212e2a0a4f781873802000149000576616c7565787200106a6176612e6c616e672e4e756d62657286ac951d0b94e08b0200007870000003e8",
             "messageType":"INSERT","lsn":4294975512,
             "incremental_snapshot_collections":"[{\\"incremental_snapshot_collections_id\\":\\"public.orders\\",\\"incremental_snapshot_collections_additional_condition\\":null,\\"incremental_snapshot_collections_surrogate_key\\":null},{\\"incremental_snapshot_collections_id\\":\\"public.items\\",\\"incremental_snapshot_collections_additional_condition\\":\\"id > 5\\",\\"incremental_snapshot_collections_surrogate_key\\":\\"\\"}]",
             "txId":812,"incremental_snapshot_primary_key":"aced0005757200135b4c6a6176612e6c616e672e4f626a6563743b90ce589f1073296c020000787000000001737200116a6176612e6c616e672e496e746567657212e2a0a4f781873802000149000576616c7565787200106a6176612e6c616e672e4e756d62657286ac951d0b94e08b0200007870000000c8",
             "ts_usec":1767225600123456,"lsn_commit":4294971392}""";

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(String text) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "false"), false);
        return (Map<String, Object>) c.toConnectData("offsets", text.getBytes(StandardCharsets.UTF_8)).value();
    }

    private static StartPlan plan(SnapshotMode mode, Map<String, Object> stored, Slot slot) {
        return StartPlan.decide(mode, SlotLostHandling.FAIL, stored, slot, "dbz");
    }

    private static Slot idle(long confirmed) {
        return new Slot(false, confirmed, confirmed - 64);
    }

    @Test
    void pgreplResumesAfterDebeziumsLastWholeTransaction() {
        Map<String, Object> s = json(STREAMING);
        assertFalse(Position.pgrepl(s));
        Position p = Position.fromOffset(s);
        assertTrue(p.covers(P, 1_000, Position.PART_MESSAGES, 1_000), "all of the transaction ending at lsn_commit");
        assertFalse(p.covers(P + 1, 0, 0, 0), "nothing of the next one (lsn_proc is inside it)");
        assertEquals(P, p.commit(), "and written back to Debezium as the same lsn_commit");
        assertEquals(Action.STREAM, plan(SnapshotMode.INITIAL, s, idle(P)).action(), "no new snapshot");
        assertEquals(Action.STREAM, plan(SnapshotMode.INITIAL, s, idle(P - 4096)).action());
        ConnectException past = assertThrows(ConnectException.class, () -> plan(SnapshotMode.INITIAL, s, idle(P + 8)));
        assertTrue(past.getMessage().contains("past the stored offsets"), past.getMessage());
        assertEquals(Action.SNAPSHOT_EXISTING_SLOT, StartPlan.decide(SnapshotMode.INITIAL, SlotLostHandling.SNAPSHOT, s,
                idle(P + 8), "dbz").action());
        assertTrue(DebeziumOffsets.incremental(s).isEmpty());
    }

    @Test
    void debeziumsUnfinishedCopyIsTakenAgainBesideItsSlot() {
        Map<String, Object> s = json(SNAPSHOT_READ);
        assertEquals("INITIAL", DebeziumOffsets.unfinishedSnapshot(s));
        assertEquals(Position.START, Position.fromOffset(s));
        StartPlan p = plan(SnapshotMode.INITIAL, s, idle(P));
        assertEquals(Action.SNAPSHOT_EXISTING_SLOT, p.action());
        assertEquals(P, p.streamFrom(), "streams from the slot's position, which Debezium did not move while copying");
        assertTrue(p.why().contains("Debezium"), p.why());
        assertEquals(Action.SNAPSHOT_NEW_SLOT, plan(SnapshotMode.WHEN_NEEDED, s, null).action());
        assertThrows(ConnectException.class, () -> plan(SnapshotMode.INITIAL, s, new Slot(true, P, P)), "a slot in use");
        ConnectException never = assertThrows(ConnectException.class, () -> plan(SnapshotMode.NEVER, s, idle(P)));
        assertTrue(never.getMessage().contains("snapshot.mode=initial"), never.getMessage());
        // Debezium 1.x wrote snapshot=true.
        assertEquals("INITIAL", DebeziumOffsets.unfinishedSnapshot(json("{\"snapshot\":true,\"last_snapshot_record\":false,\"lsn\":5}")));
        ConnectException blocking = assertThrows(ConnectException.class, () -> plan(SnapshotMode.INITIAL,
                json(SNAPSHOT_READ.replace("INITIAL", "BLOCKING")), idle(P)));
        assertTrue(blocking.getMessage().contains("blocking snapshot"), blocking.getMessage());
    }

    @Test
    void debeziumsFinishedCopyStreamsFromItsPoint() {
        Map<String, Object> s = json(SNAPSHOT_LAST);
        assertNull(DebeziumOffsets.unfinishedSnapshot(s));
        assertEquals(Action.STREAM, plan(SnapshotMode.INITIAL, s, idle(P)).action());
        assertTrue(Position.fromOffset(s).covers(P, 0, 0, 0));
        assertFalse(Position.fromOffset(s).covers(P + 1, 0, 0, 0));
    }

    @Test
    void debeziumsIncrementalSnapshotsInProgressAreNamed() {
        Map<String, Object> s = json(INCREMENTAL);
        assertEquals(List.of(new DebeziumOffsets.Collection("public.orders", null, null),
                new DebeziumOffsets.Collection("public.items", "id > 5", null)), DebeziumOffsets.incremental(s));
        assertEquals(Action.STREAM, plan(SnapshotMode.INITIAL, s, idle(P)).action());
        Map<String, Object> broken = new HashMap<>(s);
        broken.put(DebeziumOffsets.INCREMENTAL_COLLECTIONS, "[{\"incremental_snapshot_collections_id\":");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DebeziumOffsets.incremental(broken));
        assertTrue(e.getMessage().contains(DebeziumOffsets.INCREMENTAL_COLLECTIONS), e.getMessage());
    }

    @Test
    void pgreplsOffsetsWrittenBeforeDebeziumsKeysAreStillRead() {
        // lsn_commit was the record's own transaction end, with event (and event_part) beside it.
        Map<String, Object> old = json("{\"lsn_commit\":" + E + ",\"event\":3,\"event_part\":1}");
        assertTrue(Position.pgrepl(old));
        assertEquals(Position.of(E, 3, 1), Position.fromOffset(old));
        assertTrue(Position.snapshotInterrupted(json("{\"snapshot\":true,\"snapshot_lsn\":" + P + ",\"event\":7}")));
        assertFalse(Position.snapshotInterrupted(json("{\"lsn_commit\":" + P + ",\"event\":-1,\"snapshot\":\"last\"}")));
        assertEquals(new Position(P, -1), Position.fromOffset(json("{\"lsn_commit\":" + P + ",\"event\":-1,\"snapshot\":\"last\"}")));
    }
}
