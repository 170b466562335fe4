package io.pgrepl.it.schema;

import static io.pgrepl.it.schema.SchemaChangeScriptTest.await;
import static io.pgrepl.it.schema.SchemaChangeScriptTest.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.client.snapshot.incremental.IncrementalFlow;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Update;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import io.pgrepl.testkit.junit.PgMatrixTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;

/**
 * An incremental snapshot of a table whose shape changes while it is read (a column added with
 * values, one renamed, one widened, one dropped, each with rows streamed): in stream order, every read
 * and every streamed row of the table has exactly the columns of the last schema change delivered for
 * it (so old-shape reads never follow rows of a new shape, and new-shape reads never come before
 * their announcement); reads after a change carry the new column; the table rebuilt from reads and
 * rows, columns included, equals the source. 18 (message watermarks, DDL capture) and 10 (read-only
 * watermarks; no DDL capture, so the renamed column's values are not compared).
 */
class SchemaChangeIncrementalTest {
    private static final int ROWS = 8000;

    @PgMatrixTest(newestAndOldest = true)
    void readsFollowTheShapeTheStreamAnnounced(PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS si_pub; DROP TABLE IF EXISTS si_items;"
                + " CREATE TABLE si_items (id int PRIMARY KEY, \"Note\" varchar(20), qty numeric(10,2));"
                + " INSERT INTO si_items SELECT g, 'n' || g, g / 100.0 FROM generate_series(1, " + ROWS + ") g;"
                + " CREATE PUBLICATION si_pub FOR TABLE si_items");
        List<ChangeEvent> events = new CopyOnWriteArrayList<>();
        Throwable[] error = new Throwable[1];
        Flow.Subscription[] subscription = new Flow.Subscription[1];
        boolean messages = s.majorVersion() >= 14;
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            // DDL capture where pgoutput can carry it, so the rename is one; without it a rename is a drop and an add.
            if (messages) await(io.pgrepl.client.schema.DdlCapture.install(sql));
            s.dropReplicationSlotIfExists("si_slot");
            await(repl.createReplicationSlot(CreateSlotOptions.logical("si_slot", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
            LogicalReplicationOptions.Builder o = LogicalReplicationOptions.builder("si_slot").publications("si_pub")
                    .statusInterval(Duration.ofMillis(200));
            if (messages) o.messages(true);
            ConnectionConfig ordinary = ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                    .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).build();
            IncrementalOptions inc = IncrementalOptions.of(ordinary).withChunkSize(150);
            if (!messages) inc = inc.withWatermarks(WatermarkMode.READ_ONLY);
            IncrementalFlow face = IncrementalFlow.changes(repl, o.build(), FlowOptions.defaults(), inc);
            face.publisher().subscribe(new Flow.Subscriber<>() {
                public void onSubscribe(Flow.Subscription sub) {
                    subscription[0] = sub;
                    sub.request(Long.MAX_VALUE);
                }

                public void onNext(ChangeEvent e) {
                    events.add(e);
                    e.acknowledge();
                }

                public void onError(Throwable t) {
                    error[0] = t;
                }

                public void onComplete() {}
            });
            face.snapshots().execute("public.si_items");
            // Each statement while chunks are read: the stream's rows of the new shape overtake chunks of the old plan.
            String[] ddl = {
                "ALTER TABLE si_items ADD COLUMN extra int; UPDATE si_items SET extra = id * 2 WHERE id % 50 = 0",
                "ALTER TABLE si_items RENAME COLUMN \"Note\" TO \"Renamed Note\"; UPDATE si_items SET \"Renamed Note\" = 'r' || id WHERE id % 70 = 0",
                "ALTER TABLE si_items ALTER COLUMN qty TYPE numeric(14,4); UPDATE si_items SET qty = qty + 1 WHERE id % 90 = 0",
                "ALTER TABLE si_items DROP COLUMN extra; DELETE FROM si_items WHERE id % 110 = 0; INSERT INTO si_items VALUES (-1, 'new', 1)"};
            for (int i = 0; i < ddl.length; i++) {
                int changes = i + 1;
                await(sql.query(ddl[i]));
                // The stream delivers the statement's schema change, then four more chunks go out before the next one.
                waitFor("schema change " + changes, () -> events.stream().filter(e -> e.schemaChange() != null).count() >= changes
                        || error[0] != null);
                long base = events.stream().filter(ChangeEvent::snapshotRead).count();
                // Or the snapshot's end: on a busy machine the reads can outrun the statements, and none are left to wait for.
                waitFor("reads after schema change " + changes, () -> events.stream().filter(ChangeEvent::snapshotRead).count() >= base + 600
                        || error[0] != null || snapshotOver(face));
            }
            waitFor("the snapshot's end", () -> snapshotOver(face) || error[0] != null);
            await(sql.query("INSERT INTO si_items VALUES (-2, 'last', 2)"));
            waitFor("the last row", () -> events.stream().anyMatch(e -> e.record() instanceof Insert in && in.newTuple().text(0).equals("-2"))
                    || error[0] != null);
            assertNull(error[0]);
            subscription[0].cancel();
            face.snapshots().close();

            // In stream order: every read and row has the columns of the last schema change delivered for the table.
            List<String> announced = null;
            Map<String, Map<String, String>> rebuilt = new TreeMap<>();
            int readsAfterAdd = 0;
            List<String> problems = new ArrayList<>();
            for (ChangeEvent e : events) {
                SchemaChange c = e.schemaChange();
                if (c != null && c.after() != null) {
                    List<String> next = names(c.after());
                    if (announced != null) {
                        // a renamed column carries its values, a dropped one loses them
                        for (var r : c.renamed()) for (var row : rebuilt.values()) row.put(r.after().name(), row.remove(r.before().name()));
                        for (var row : rebuilt.values()) row.keySet().retainAll(next);
                    }
                    announced = next;
                }
                RelationInfo rel = e.relation();
                if (rel == null || !(e.record() instanceof Insert || e.record() instanceof Update || e.record() instanceof Delete)) continue;
                List<String> cols = names(rel);
                // Reads before the table's first Relation have nothing announced yet: its FIRST_SEEN follows.
                boolean unannounced = announced == null && e.snapshotRead();
                if (!unannounced && !cols.equals(announced)) problems.add((e.snapshotRead() ? "read " : "row ") + cols + " after " + announced);
                if (e.record() instanceof Insert in) {
                    rebuilt.put(in.newTuple().text(0), values(in.newTuple()));
                    if (e.snapshotRead() && cols.contains("extra")) readsAfterAdd++;
                } else if (e.record() instanceof Update up) {
                    // an update of a row not read yet: the snapshot leaves its read out, the update carries it
                    rebuilt.computeIfAbsent(up.newTuple().text(0), k -> new HashMap<>()).putAll(values(up.newTuple()));
                } else if (e.record() instanceof Delete d) {
                    rebuilt.remove(d.oldTuple().text(0));
                }
            }
            assertEquals(List.of(), problems.subList(0, Math.min(5, problems.size())), problems.size() + " events in another shape than announced");
            assertTrue(readsAfterAdd > 0, "chunks read after ADD COLUMN carry the new column");
            assertEquals(List.of("id", "Renamed Note", "qty"), announced);
            Map<String, Map<String, String>> source = new TreeMap<>();
            for (var r : await(sql.query("SELECT id::text, \"Renamed Note\", qty::text FROM si_items")).rows()) {
                Map<String, String> row = new HashMap<>();
                row.put("id", r.get(0));
                row.put("Renamed Note", r.get(1));
                row.put("qty", r.get(2) == null ? null : new java.math.BigDecimal(r.get(2)).stripTrailingZeros().toPlainString());
                source.put(r.get(0), row);
            }
            for (var row : rebuilt.values()) {
                if (row.get("qty") != null) row.put("qty", new java.math.BigDecimal(row.get("qty")).stripTrailingZeros().toPlainString());
            }
            if (!messages) {
                // Without DDL capture the renamed column's values are lost in the rows not written since.
                source.values().forEach(r -> r.remove("Renamed Note"));
                rebuilt.values().forEach(r -> r.remove("Renamed Note"));
            }
            List<String> differ = new ArrayList<>();
            for (String k : source.keySet()) if (!source.get(k).equals(rebuilt.get(k))) differ.add(k + ": " + rebuilt.get(k) + ", source " + source.get(k));
            for (String k : rebuilt.keySet()) if (!source.containsKey(k)) differ.add(k + ": " + rebuilt.get(k) + ", not in the source");
            assertEquals(List.of(), differ.subList(0, Math.min(5, differ.size())), differ.size() + " rows differ from the source");
            // The cancelled stream's walsender lets go of the slot when it gets to it (55006 until then).
            s.dropReplicationSlot("si_slot");
            await(io.pgrepl.client.schema.DdlCapture.uninstall(sql));
        }
    }

    private static List<String> names(RelationInfo r) {
        List<String> out = new ArrayList<>();
        for (ColumnInfo c : r.columns()) out.add(c.name());
        return out;
    }

    private static Map<String, String> values(Tuple t) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < t.size(); i++) {
            if (t.kind(i) == io.pgrepl.codec.pgoutput.ColumnKind.UNCHANGED_TOAST) continue;
            m.put(t.name(i), t.hasValue(i) ? t.text(i) : null);
        }
        return m;
    }

    private static boolean snapshotOver(IncrementalFlow face) {
        try {
            return await(face.snapshots().progress()).isEmpty();
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void waitFor(String what, java.util.function.BooleanSupplier cond) throws Exception {
        Waits.until(what, cond::getAsBoolean);
    }
}
