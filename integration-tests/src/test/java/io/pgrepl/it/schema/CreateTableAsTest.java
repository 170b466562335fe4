package io.pgrepl.it.schema;

import static io.pgrepl.it.schema.SchemaChangeScriptTest.await;
import static io.pgrepl.it.schema.SchemaChangeScriptTest.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.schema.CatalogColumn;
import io.pgrepl.client.schema.DdlCapture;
import io.pgrepl.client.schema.DdlCommand;
import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.StreamCommitMessage;
import io.pgrepl.codec.pgoutput.StreamStartMessage;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import io.pgrepl.testkit.schema.CatalogShape;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * CREATE TABLE AS and SELECT INTO write the new table's rows before DDL capture's
 * {@code ddl_command_end} message: the CREATE must still come before the first of them, with the
 * table as its first Relation and the catalog describe it (type names as {@code format_type} prints
 * them), and a later DROP must carry the last shape delivered. A transaction too large for
 * {@code logical_decoding_work_mem} (64kB here), streamed in blocks (protocol 2+, handler face) and
 * spilled by the server (blocking face); a CREATE TABLE AS that created nothing (IF NOT EXISTS)
 * leaves the next transaction's tables alone. PostgreSQL 18 and 14, the newest and oldest with
 * DDL capture (pgoutput sends logical messages from 14).
 */
@PgTest
class CreateTableAsTest {
    private static final int ROWS = 4000;
    private static final String BIG = "CREATE TABLE \"Big As\" AS SELECT g AS id, (g / 3.0)::numeric(12,3) AS n,"
            + " (CASE WHEN g % 7 = 0 THEN NULL ELSE repeat('x', 90) || g END)::varchar(120) AS pad,"
            + " ('2024-01-01'::timestamp + g * interval '1.5 second')::timestamp(2) AS at, ARRAY[g, NULL]::int[] AS arr,"
            + " interval '1 day' AS span FROM generate_series(1, " + ROWS + ") g";
    private static final String INTO = "SELECT 1 AS id, 'ok'::\"Mood\" AS \"Mood\", ARRAY['sad', NULL]::\"Mood\"[] AS moods,"
            + " 12.5::numeric(5,1) AS n, B'101'::bit(3) AS b, 'y'::char(2) AS c INTO \"Small Into\"";

    @Test
    void createComesBeforeTheRowsOn18(@PgServerConfig(version = 18, settings = "logical_decoding_work_mem=64kB") PgServer s)
            throws Exception {
        run(s);
    }

    @Test
    void createComesBeforeTheRowsOn14(@PgServerConfig(version = 14, settings = "logical_decoding_work_mem=64kB") PgServer s)
            throws Exception {
        run(s);
    }

    private static void run(PgServer s) throws Exception {
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            await(DdlCapture.install(sql));
        }
        s.sql("postgres", "DROP PUBLICATION IF EXISTS ctas_pub; DROP TABLE IF EXISTS \"Big As\", \"Small Into\", ctas_plain, ctas_done;"
                + " DROP TYPE IF EXISTS \"Mood\"; CREATE TYPE \"Mood\" AS ENUM ('sad', 'ok');"
                + " CREATE TABLE ctas_plain (id int PRIMARY KEY, v text); CREATE TABLE ctas_done (id int PRIMARY KEY);"
                + " CREATE PUBLICATION ctas_pub FOR ALL TABLES");
        for (String slot : List.of("ctas_streamed", "ctas_spilled")) {
            s.sql("postgres", "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        }
        try {
            Map<String, Integer> oids = new HashMap<>();
            Map<String, List<String>> shapes = new HashMap<>();
            Map<String, List<String>> types = new HashMap<>();
            s.sql("postgres", BIG);
            read(s, "Big As", "created", oids, shapes, types);
            s.sql("postgres", INTO);
            read(s, "Small Into", "created", oids, shapes, types);
            s.sql("postgres", "ALTER TABLE \"Big As\" ADD COLUMN extra bit(3); INSERT INTO \"Big As\" (id, extra) VALUES (0, B'101')");
            read(s, "Big As", "altered", oids, shapes, types);
            s.sql("postgres", "DROP TABLE \"Big As\", \"Small Into\"");
            // Exists already: the statement starts (DDL capture marks it) and creates nothing.
            s.sql("postgres", "CREATE TABLE IF NOT EXISTS ctas_plain AS SELECT 1 AS id, 'x'::text AS v");
            s.sql("postgres", "INSERT INTO ctas_plain VALUES (1, 'first row')");
            s.sql("postgres", "INSERT INTO ctas_done VALUES (1)");
            int done = oid(s, "ctas_done");
            int plain = oid(s, "ctas_plain");

            Seen streamed = handlerFace(s, done);
            assertTrue(streamed.streamBlocks > 1, "the CREATE TABLE AS transaction was streamed in blocks: " + streamed.streamBlocks);
            check("handler face, streamed", streamed, oids, shapes, types, plain, done);

            Seen spill = blockingFace(s, done);
            check("blocking face, spilled", spill, oids, shapes, types, plain, done);
            // The walsender reports its slot's statistics a moment after decoding.
            long spilled = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            try (PgConnection c = connect(s, ReplicationMode.NONE)) {
                while (spilled == 0 && System.nanoTime() < deadline) {
                    Row r = await(c.query("SELECT spill_txns FROM pg_stat_replication_slots WHERE slot_name = 'ctas_spilled'")).singleRow();
                    spilled = Long.parseLong(r.get(0));
                    if (spilled == 0) Thread.sleep(100);
                }
            }
            assertTrue(spilled > 0, "the server spilled the CREATE TABLE AS transaction");
        } finally {
            for (String slot : List.of("ctas_streamed", "ctas_spilled")) SchemaChangeScriptTest.dropWhenInactive(s, slot);
            try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
                await(DdlCapture.uninstall(sql));
            }
        }
    }

    /** The catalog's shape and {@code format_type}s (search_path pg_catalog, as DDL capture reads them) of a table now. */
    private static void read(PgServer s, String table, String when, Map<String, Integer> oids, Map<String, List<String>> shapes,
                             Map<String, List<String>> types) throws Exception {
        int oid = oid(s, table);
        oids.put(table, oid);
        try (PgConnection c = connect(s, ReplicationMode.NONE)) {
            shapes.put(table + " " + when, CatalogShape.read(c, List.of(oid)).get(oid).describe());
            await(c.query("SELECT set_config('search_path', 'pg_catalog', false)"));
            List<String> t = new ArrayList<>();
            for (Row r : await(c.query("SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = "
                    + Integer.toUnsignedString(oid) + " AND attnum > 0 AND NOT attisdropped ORDER BY attnum")).rows()) {
                t.add(r.get(0) + " " + r.get(1));
            }
            types.put(table + " " + when, t);
        }
    }

    private static int oid(PgServer s, String table) throws Exception {
        try (PgConnection c = connect(s, ReplicationMode.NONE)) {
            return Integer.parseUnsignedInt(await(c.query("SELECT '\"" + table + "\"'::regclass::oid")).singleRow().get(0));
        }
    }

    /** What a face delivered: schema changes and rows, in order. */
    private static final class Seen {
        final List<Object> items = new ArrayList<>();
        int streamBlocks;
        boolean done;
    }

    private static void check(String face, Seen seen, Map<String, Integer> oids, Map<String, List<String>> shapes,
                              Map<String, List<String>> types, int plain, int done) {
        int big = oids.get("Big As");
        int into = oids.get("Small Into");
        List<String> kinds = new ArrayList<>();
        Map<Integer, Integer> rows = new HashMap<>();
        Map<Integer, SchemaChange> created = new HashMap<>();
        Map<Integer, SchemaChange> dropped = new HashMap<>();
        for (Object o : seen.items) {
            if (o instanceof SchemaChange c) {
                kinds.add(c.kind() + " " + c.table());
                if (c.kind() == SchemaChange.Kind.CREATE) created.put(c.relationId(), c);
                if (c.kind() == SchemaChange.Kind.DROP) dropped.put(c.relationId(), c);
            } else {
                int oid = (Integer) o;
                assertTrue(oid == plain || oid == done || created.containsKey(oid), face + ": a row of " + oid + " before its CREATE");
                rows.merge(oid, 1, Integer::sum);
            }
        }
        assertEquals(List.of("CREATE Big As", "CREATE Small Into", "ALTER Big As"), kinds.subList(0, 3), face + ": " + kinds);
        assertEquals(Set.of("DROP Big As", "DROP Small Into"), Set.copyOf(kinds.subList(3, 5)), face + ": " + kinds);
        // The IF NOT EXISTS that created nothing does not make the next transaction's first Relation a CREATE.
        assertEquals(List.of("FIRST_SEEN ctas_plain", "FIRST_SEEN ctas_done"), kinds.subList(5, kinds.size()), face + ": " + kinds);
        assertEquals(ROWS + 1, rows.get(big), face + ": rows of Big As");
        assertEquals(1, rows.get(into), face + ": rows of Small Into");

        for (String table : List.of("Big As", "Small Into")) {
            SchemaChange c = created.get(oids.get(table));
            assertEquals(shapes.get(table + " created"), Observe.describe(c.after()), face + ": " + table + " CREATE's after");
            DdlCommand d = c.ddl().get(0);
            assertEquals(table.equals("Big As") ? BIG : INTO, d.query(), face + ": the creating statement");
            assertNotNull(d.table(), face + ": " + table + " described");
            List<String> described = new ArrayList<>();
            for (CatalogColumn col : d.table().columns()) described.add(col.name() + " " + col.type());
            assertEquals(types.get(table + " created"), described, face + ": " + table + "'s column types");
            assertEquals(List.of(), d.table().primaryKey());
        }
        assertEquals(shapes.get("Big As altered"), Observe.describe(dropped.get(big).before()), face + ": Big As DROP's before");
        assertEquals(shapes.get("Small Into created"), Observe.describe(dropped.get(into).before()), face + ": Small Into DROP's before");
    }

    private static LogicalReplicationOptions.Builder options(String slot) {
        return LogicalReplicationOptions.builder(slot).publications("ctas_pub").messages(true).statusInterval(Duration.ofMillis(500));
    }

    private static Seen handlerFace(PgServer s, int done) throws Exception {
        Seen seen = new Seen();
        CompletableFuture<Void> finished = new CompletableFuture<>();
        AtomicInteger blocks = new AtomicInteger();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            LogicalReplicationStream stream = repl.startLogical(options("ctas_streamed").streaming(StreamingMode.ON).build(),
                    new LogicalStreamHandler() {
                        @Override
                        public void onSchemaChange(SchemaChange change) {
                            seen.items.add(change);
                        }

                        @Override
                        public void onInsert(InsertMessage m) {
                            seen.items.add(m.relation().oid());
                            if (m.relation().oid() == done) seen.done = true;
                        }

                        @Override
                        public void onStreamStart(StreamStartMessage m) {
                            blocks.incrementAndGet();
                        }

                        @Override
                        public void onStreamCommit(StreamCommitMessage m) {
                            if (seen.done) finished.complete(null);
                        }

                        @Override
                        public void onCommit(CommitMessage m) {
                            if (seen.done) finished.complete(null);
                        }
                    });
            stream.completion().whenComplete((v, e) -> {
                if (e != null) finished.completeExceptionally(e);
            });
            finished.get(120, TimeUnit.SECONDS);
            await(stream.stop());
        }
        seen.streamBlocks = blocks.get();
        return seen;
    }

    private static Seen blockingFace(PgServer s, int done) throws Exception {
        Seen seen = new Seen();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE);
             BlockingChanges<ChangeEvent> it = BlockingChanges.open(repl, options("ctas_spilled").build(), FlowOptions.defaults(), 64)) {
            while (it.hasNext()) {
                ChangeEvent e = it.next();
                if (e.schemaChange() != null) seen.items.add(e.schemaChange());
                if (e.record() instanceof Insert i) {
                    seen.items.add(i.relationOid());
                    if (i.relationOid() == done) seen.done = true;
                }
                if (seen.done && e.record() instanceof Commit) break;
            }
        }
        return seen;
    }
}
