package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import io.pgrepl.testkit.schema.SchemaScript;
import io.pgrepl.testkit.schema.SchemaScriptRun;
import io.pgrepl.testkit.schema.TableContent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SchemaScript} streamed by pgrepl's connector into Kafka and applied by Debezium's JDBC sink
 * 3.5.0 ({@code schema.evolution=basic}, {@code insert.mode=upsert}, {@code primary.key.mode=record_key},
 * {@code delete.enabled=true}; {@link JdbcSinkPlugin}) to a second database on the same server, one
 * sink connector per group of topics so that a table the sink cannot follow does not stop the others.
 * What the sink does with each kind of change, checked here (docs/schema-changes.md says the same):
 *
 * <ul>
 *   <li>CREATE TABLE: the sink creates its table at the first record ({@code Dot.ted}, {@code sc_gone}).
 *   <li>ADD COLUMN: added, NULL in the rows not written since ({@code sc_plain}'s {@code c1}, {@code c2};
 *       {@code "Order Items"}' {@code "Extra Col"}).
 *   <li>DROP COLUMN: the column stays, keeping its values ({@code "Order Items"}' {@code flags}).
 *   <li>RENAME COLUMN: a new column under the new name, filled only in rows written since; the old one
 *       stays with its values ({@code "näme"} and {@code "Näme Neu"}).
 *   <li>A type change: the column keeps the type it was created with ({@code "Dot.ted"}'s {@code id} stays
 *       bigint after ALTER to numeric(20,0)); a value that no longer fits fails the sink's task
 *       ({@code sc_plain}'s {@code c1}, dropped and added again as bigint, gets 3000000000: "integer out
 *       of range"), and it stops there.
 *   <li>A table without a primary key (REPLICA IDENTITY FULL: {@code sc_p1}, {@code sc_p2}) has no record
 *       key: {@code record_key} refuses its first record, no table is created.
 *   <li>A new primary key on {@code "Order Items"}: the sink's table keeps its key, and the task fails on
 *       records keyed otherwise; the change made under REPLICA IDENTITY FULL one step before has no record
 *       key when the connector reads it after the key was replaced (its primary key is read then), and
 *       then fails the task first.
 *   <li>RENAME TABLE and SET SCHEMA: records go to another topic, so to another sink table holding only
 *       the rows written since (not checked here: the group fails before).
 *   <li>DROP TABLE: nothing; the sink's table and its rows stay ({@code Dot.ted}, {@code sc_gone}).
 * </ul>
 *
 * Tables are compared on the columns both sides have, values as PostgreSQL prints them, against the
 * source as it was when the sink stopped following it (read after the step concerned), or at the end.
 * PostgreSQL 18 and 10: the sink writes to a database of the same server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemaEvolutionJdbcSinkTest {
    private EmbeddedConnectCluster connect;

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("jdbc-sink-evolution", 1, JdbcSinkPlugin.workerProps());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void jdbcSinkFollowsWhatBasicEvolutionCan(int major) throws Exception {
        String p = "je" + major;
        try (PgServer pg = PgServer.start(PgServer.builder().version(major).build())) {
            pg.sql("postgres", "CREATE DATABASE sink");
            SchemaScriptRun script = SchemaScriptRun.setUp(pg, "postgres");
            Map<String, String> cfg = EndToEndTest.connectorConfig(pg, p);
            cfg.put("publication.name", SchemaScript.PUBLICATION);
            cfg.put("publication.autocreate.mode", "disabled");
            cfg.remove("table.include.list");
            // Kafka refuses spaces in topic names: "Sales Dept"."Order Items" becomes Sales_Dept.Order_Items.
            cfg.put("transforms", "space1,space2");
            for (String t : List.of("space1", "space2")) {
                cfg.put("transforms." + t + ".type", "org.apache.kafka.connect.transforms.RegexRouter");
                cfg.put("transforms." + t + ".regex", "(.*) (.*)");
                cfg.put("transforms." + t + ".replacement", "$1_$2");
            }
            connect.configureConnector(p, cfg);
            ConnectHarness.awaitRunning(connect, p, 1, "the source connector runs");
            EndToEndTest.awaitSlotActive(pg, p + "_slot");

            // The source as it was at the steps after which the sink can no longer follow a table.
            List<SchemaScript.Step> steps = SchemaScript.steps();
            int plainLastFollowed = firstStep(steps, s -> s.ddlOn().contains(SchemaScript.PLAIN));
            Map<String, Table> then = new HashMap<>();
            script.runSteps(i -> {
                try {
                    if (i == plainLastFollowed) then.put(SchemaScript.PLAIN, read(pg, "postgres", "public", "sc_plain"));
                    if (i + 1 < steps.size() && steps.get(i + 1).drops().contains(SchemaScript.DOTTED)) {
                        then.put(SchemaScript.DOTTED, read(pg, "postgres", "public", "Dot.ted"));
                    }
                    if (i + 1 < steps.size() && steps.get(i + 1).drops().contains(SchemaScript.GONE)) {
                        then.put(SchemaScript.GONE, read(pg, "postgres", "public", "sc_gone"));
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            ConnectHarness.readUntil(connect, "\\Q" + p + ".\\E.*", Map.of(),
                    l -> l.stream().anyMatch(c -> c.topic().equals(p + ".public.sc_done")), Duration.ofSeconds(120));
            connect.deleteConnector(p);

            Map<String, String> groups = new LinkedHashMap<>();
            groups.put("followed", "public\\.(sc_done|sc_gone|Dot\\.ted)");
            groups.put("plain", "public\\.sc_plain");
            groups.put("nokey", "public\\.sc_p[12]");
            groups.put("items", "(Sales_Dept|public)\\.Order_(Items|Lines)");
            for (var g : groups.entrySet()) {
                Map<String, String> c = JdbcSinkPlugin.config(pg, "sink");
                c.put("topics.regex", "\\Q" + p + ".\\E" + g.getValue());
                connect.configureConnector(p + "-" + g.getKey(), c);
            }
            Map<Integer, TableContent> end = script.source();

            // Followed: sc_done equals the source; Dot.ted and sc_gone, dropped there, stay as they were.
            Table done = source(end, script.oid(SchemaScript.DONE));
            awaitEqual(pg, p + "-followed", p + "_public_sc_done", done);
            awaitEqual(pg, p + "-followed", p + "_public_Dot_ted", then.get(SchemaScript.DOTTED));
            awaitEqual(pg, p + "-followed", p + "_public_sc_gone", then.get(SchemaScript.GONE));
            assertEquals("bigint", columnType(pg, p + "_public_Dot_ted", "id"), "Dot.ted's id keeps its first type");
            assertTrue(taskState(p + "-followed").startsWith("RUNNING"), taskState(p + "-followed"));

            // sc_plain: columns added are followed; c1 dropped and added again as bigint is not (the
            // column stays integer), and 3000000000 fails the task: the table stays as the source was before.
            String plain = awaitFailed(p + "-plain");
            assertTrue(plain.contains("integer out of range"), plain);
            assertEquals("integer", columnType(pg, p + "_public_sc_plain", "c1"));
            assertEquals(then.get(SchemaScript.PLAIN).rows(), read(pg, "sink", "public", p + "_public_sc_plain")
                    .on(then.get(SchemaScript.PLAIN).columns()).rows(), "sc_plain in the sink, as the source after the columns were added");

            // No primary key: no record key, refused at the first record.
            String nokey = awaitFailed(p + "-nokey");
            assertTrue(nokey.contains("record_key"), nokey);
            assertEquals(List.of(), read(pg, "sink", "public", p + "_public_sc_p1").columns(), "no sink table for sc_p1");

            // "Order Items": added and renamed columns are added, the dropped and the old name stay; the key change fails the task.
            String items = awaitFailed(p + "-items");
            assertTrue(items.contains("record_key") || items.contains("ON CONFLICT"), items);
            List<String> cols = read(pg, "sink", "public", p + "_Sales_Dept_Order_Items").columns();
            for (String c : List.of("näme", "Näme Neu", "Extra Col", "flags")) assertTrue(cols.contains(c), c + " in " + cols);

            for (String g : groups.keySet()) connect.deleteConnector(p + "-" + g);
        }
    }

    private static int firstStep(List<SchemaScript.Step> steps, java.util.function.Predicate<SchemaScript.Step> p) {
        for (int i = 0; i < steps.size(); i++) if (p.test(steps.get(i))) return i;
        throw new AssertionError("no such step");
    }

    /** A table's columns (in order) and its rows, every value as PostgreSQL prints it. */
    record Table(List<String> columns, List<String> rows) {
        /** Only the given columns, in their order (the sink's table may have more, and in another order). */
        Table on(List<String> keep) {
            return new Table(keep, rows.stream().map(r -> project(r, columns, keep)).sorted().toList());
        }

        @Override
        public String toString() {
            return columns + " " + rows.stream().map(r -> "(" + r.replace("\u0001", " | ") + ")").toList();
        }

        private static String project(String row, List<String> from, List<String> keep) {
            String[] v = row.split("\u0001", -1);
            List<String> out = new ArrayList<>();
            for (String k : keep) {
                int i = from.indexOf(k);
                out.add(i < 0 ? "<no column>" : v[i]);
            }
            return String.join("\u0001", out);
        }
    }

    /** Reads a table; none (no columns, no rows) when it does not exist. */
    static Table read(PgServer pg, String database, String schema, String table) throws Exception {
        try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), database)).toCompletableFuture().get(30, TimeUnit.SECONDS)) {
            List<String> cols = new ArrayList<>();
            for (Row r : c.query("SELECT column_name FROM information_schema.columns WHERE table_schema = " + literal(schema)
                    + " AND table_name = " + literal(table) + " ORDER BY ordinal_position").toCompletableFuture().get(30, TimeUnit.SECONDS).rows()) {
                cols.add(r.get(0));
            }
            if (cols.isEmpty()) return new Table(List.of(), List.of());
            StringBuilder sql = new StringBuilder("SELECT concat_ws(chr(1)");
            for (String col : cols) sql.append(", coalesce(").append(ident(col)).append("::text, '<null>')");
            sql.append(") FROM ").append(ident(schema)).append('.').append(ident(table));
            List<String> rows = new ArrayList<>();
            for (Row r : c.query(sql.toString()).toCompletableFuture().get(30, TimeUnit.SECONDS).rows()) rows.add(normalized(r.get(0)));
            rows.sort(null);
            return new Table(cols, rows);
        }
    }

    /** Numeric values by value: the sink's numeric column may have another scale than the source's. */
    private static String normalized(String row) {
        List<String> out = new ArrayList<>();
        for (String v : row.split("\u0001", -1)) out.add(v.matches("-?[0-9]+\\.[0-9]+") ? TableContent.normalize(v) : v);
        return String.join("\u0001", out);
    }

    private static Table source(Map<Integer, TableContent> end, int oid) {
        TableContent t = end.get(oid);
        List<String> cols = new ArrayList<>();
        for (String c : t.columns()) cols.add(c.substring(0, c.lastIndexOf(':', c.lastIndexOf(':') - 1)));
        List<String> rows = new ArrayList<>();
        for (Map<String, String> r : t.rows()) {
            List<String> v = new ArrayList<>();
            for (String c : cols) v.add(r.get(c) == null ? "<null>" : r.get(c));
            rows.add(normalized(String.join("\u0001", v)));
        }
        rows.sort(null);
        return new Table(cols, rows);
    }

    /** Waits until the sink's table, on the source's columns, equals {@code want}; fails naming the sink's state. */
    private void awaitEqual(PgServer pg, String sink, String table, Table want) throws Exception {
        assertTrue(want != null && !want.rows().isEmpty(), table + ": the source had rows");
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        Table got = null;
        while (System.nanoTime() < end) {
            got = read(pg, "sink", "public", table).on(want.columns());
            if (got.equals(want)) return;
            Thread.sleep(250);
        }
        assertEquals(want, got, table + " through sink " + sink + " (" + taskState(sink) + ")");
    }

    /** Waits for the sink's task to fail; returns its trace. */
    private String awaitFailed(String sink) throws Exception {
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (System.nanoTime() < end) {
            String s = taskState(sink);
            if (s.startsWith("FAILED")) return s;
            Thread.sleep(250);
        }
        throw new AssertionError(sink + ": expected to fail, " + taskState(sink));
    }

    private String taskState(String sink) {
        try {
            ConnectorStateInfo st = connect.connectorStatus(sink);
            if (st.tasks().isEmpty()) return "NO TASK";
            ConnectorStateInfo.TaskState t = st.tasks().get(0);
            return t.state() + (t.trace() == null ? "" : " " + t.trace());
        } catch (Exception e) {
            return "UNKNOWN " + e.getMessage();
        }
    }

    private static String columnType(PgServer pg, String table, String column) throws Exception {
        try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "sink")).toCompletableFuture().get(30, TimeUnit.SECONDS)) {
            return c.query("SELECT data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = " + literal(table)
                    + " AND column_name = " + literal(column)).toCompletableFuture().get(30, TimeUnit.SECONDS).singleRow().get(0);
        }
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static String ident(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }
}
