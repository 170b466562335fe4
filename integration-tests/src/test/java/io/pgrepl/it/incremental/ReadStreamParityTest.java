package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotHandler;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.TypedTable;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The parity rule on the library's face: a row read by the initial copy (exported snapshot) and by
 * an incremental snapshot's chunk carries the relation the stream's Relation message describes
 * (types, typmods, replica identity and its flags) and decodes to the same values as the same row
 * streamed. Rows 1 to 3 exist before the slot; rows 101 to 103 are inserted afterwards with the
 * same values, so they stream. Every type of {@link TypedTable} (typmod'd types, arrays, domains,
 * an enum, a composite, ranges, NULLs, infinities, a TOASTed value, names that need quoting), on a
 * table keyed by its primary key and on a copy with REPLICA IDENTITY FULL.
 */
@PgTest
class ReadStreamParityTest {
    private static final String KEYED = TypedTable.QUALIFIED;
    private static final String FULL = "\"Sales.Q1\".\"Full Ident\"";

    /** One row as seen on one path: the relation it came with and each column's decoded value. */
    record Seen(RelationInfo relation, List<Object> values) {}

    static final class Paths implements SnapshotHandler, SnapshotReadHandler {
        final Map<String, Seen> copied = new ConcurrentHashMap<>();
        final Map<String, Seen> chunked = new ConcurrentHashMap<>();
        final Map<String, Seen> streamed = new ConcurrentHashMap<>();
        final Map<String, TableProgress> progress = new ConcurrentHashMap<>();

        private static String key(TupleView t) {
            return t.relation().name() + "/" + t.text(0);
        }

        private static Seen seen(TupleView t) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < t.columnCount(); i++) values.add(t.isNull(i) ? null : t.decode(i));
            return new Seen(t.relation(), values);
        }

        @Override
        public void onRead(TupleView row, long consistentPoint) {
            copied.put(key(row), seen(row));
        }

        @Override
        public void onSnapshotRead(TupleView row, long position) {
            chunked.put(key(row), seen(row));
        }

        @Override
        public void onInsert(InsertMessage m) {
            streamed.put(key(m.newTuple()), seen(m.newTuple()));
        }

        @Override
        public void onSnapshotProgress(TableProgress p) {
            progress.put(p.table(), p);
        }
    }

    @Test
    void readsAreStreamedRowsOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, 18);
    }

    @Test
    void readsAreStreamedRowsOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s, 10);
    }

    private static void run(PgServer s, int major) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS parity_pub; " + TypedTable.setup(major)
                + " CREATE TABLE " + FULL + " (LIKE " + KEYED + " INCLUDING ALL); ALTER TABLE " + FULL + " REPLICA IDENTITY FULL;"
                + " INSERT INTO " + FULL + " SELECT * FROM " + KEYED + ";"
                + " CREATE PUBLICATION parity_pub FOR TABLE " + KEYED + ", " + FULL);
        Paths p = new Paths();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            LogicalReplicationOptions stream = LogicalReplicationOptions.builder("parity_slot").publications("parity_pub")
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            SnapshotOptions options = SnapshotOptions.of(stream).withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
            IncrementalSnapshots inc = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withWatermarks(WatermarkMode.READ_ONLY), p);
            InitialSnapshot.Started st = await(InitialSnapshot.start(repl, InitialSnapshotMode.INITIAL, options, p, inc));
            // Spelled as a user would, with the quotes the names need.
            inc.execute(KEYED, FULL);
            try {
                waitUntil("both tables read", Duration.ofSeconds(60), () -> completed(p, TypedTable.TABLE) && completed(p, "Full Ident"));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; progress: " + p.progress, e);
            }
            await(sql.query(TypedTable.copy(major, 100)));
            await(sql.query("INSERT INTO " + FULL + " SELECT * FROM " + KEYED + " WHERE \"Id\" > 100"));
            waitUntil("the streamed inserts", Duration.ofSeconds(60), () -> List.of(101, 102, 103).stream()
                    .allMatch(id -> p.streamed.containsKey(TypedTable.TABLE + "/" + id) && p.streamed.containsKey("Full Ident/" + id)));
            await(st.stream().stop());
            inc.close();
        }
        for (String table : List.of(TypedTable.TABLE, "Full Ident")) {
            for (int id = 1; id <= 3; id++) {
                Seen streamed = p.streamed.get(table + "/" + (id + 100));
                for (Map.Entry<String, Map<String, Seen>> path : Map.of("copy", p.copied, "chunk", p.chunked).entrySet()) {
                    Seen read = path.getValue().get(table + "/" + id);
                    String what = path.getKey() + " read of " + table + " row " + id;
                    assertTrue(read != null && streamed != null, what + " and its streamed twin both arrived");
                    assertEquals(streamed.relation().schema(), read.relation().schema(), what);
                    assertEquals(streamed.relation().name(), read.relation().name(), what);
                    assertEquals(streamed.relation().replicaIdentity(), read.relation().replicaIdentity(), what + ": replica identity");
                    assertEquals(streamed.relation().columns(), read.relation().columns(), what + ": columns (names, types, typmods, key flags)");
                    for (int c = 1; c < streamed.values().size(); c++) {
                        Object a = comparable(streamed.values().get(c));
                        Object b = comparable(read.values().get(c));
                        assertEquals(a, b, what + ": column " + streamed.relation().columns().get(c).name());
                    }
                }
            }
        }
        // The key flags are the server's, whatever the chunks walk by: the primary key, or every column under FULL.
        assertEquals(List.of("Id"), p.chunked.get(TypedTable.TABLE + "/1").relation().columns().stream().filter(c -> c.isKey()).map(c -> c.name()).toList());
        assertTrue(p.chunked.get("Full Ident/1").relation().columns().stream().allMatch(c -> c.isKey()));
    }

    /** A decoded value with its byte arrays as hex (in lists too), so that equal values compare equal. */
    private static Object comparable(Object v) {
        if (v instanceof byte[] b) return "bytes:" + java.util.HexFormat.of().formatHex(b);
        if (v instanceof List<?> l) return l.stream().map(ReadStreamParityTest::comparable).toList();
        return v;
    }

    private static boolean completed(Paths p, String table) {
        TableProgress t = p.progress.values().stream().filter(x -> x.table().contains(table)).findFirst().orElse(null);
        if (t != null && t.status() == TableProgress.Status.FAILED) throw new AssertionError(table + " failed: " + t.error());
        return t != null && t.status() == TableProgress.Status.COMPLETED;
    }
}
