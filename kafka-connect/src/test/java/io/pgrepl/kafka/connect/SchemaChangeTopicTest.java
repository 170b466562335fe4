package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.schema.DdlCapture;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.schema.ObservedChange;
import io.pgrepl.testkit.schema.SchemaScript;
import io.pgrepl.testkit.schema.SchemaScriptRun;
import io.pgrepl.testkit.schema.TableContent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SchemaScript} through a real Connect worker with {@code schema.changes.topic}: the schema
 * change records equal what the catalog said at each step (kind, table, columns and their type OIDs,
 * the difference, the statements with DDL capture), in order; every distinct Connect schema of a
 * table's records comes from a schema change the topic told (they carry no version, as Debezium's);
 * and the tables of plain types rebuilt from their topics equal the source.
 * PostgreSQL 18 with DDL capture, 10 without.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemaChangeTopicTest {
    private EmbeddedConnectCluster connect;

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("schema-changes", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void schemaChangeTopicSaysWhatTheCatalogSays(int major) throws Exception {
        boolean capture = major >= 14;
        String prefix = "sc" + major;
        String topic = prefix + ".schema-changes";
        try (PgServer pg = PgServer.start(PgServer.builder().version(major).build())) {
            if (capture) {
                try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture().get(30, TimeUnit.SECONDS)) {
                    DdlCapture.install(c).toCompletableFuture().get(30, TimeUnit.SECONDS);
                }
            }
            SchemaScriptRun script = SchemaScriptRun.setUp(pg, "postgres");
            Map<String, String> cfg = EndToEndTest.connectorConfig(pg, prefix);
            cfg.put("publication.name", SchemaScript.PUBLICATION);
            cfg.put("publication.autocreate.mode", "disabled");
            cfg.remove("table.include.list");
            cfg.put("schema.changes.topic", topic);
            // Kafka refuses spaces in topic names: a table named "Order Items" gets its spaces replaced here.
            cfg.put("transforms", "space1,space2");
            for (String t : List.of("space1", "space2")) {
                cfg.put("transforms." + t + ".type", "org.apache.kafka.connect.transforms.RegexRouter");
                cfg.put("transforms." + t + ".regex", "(.*) (.*)");
                cfg.put("transforms." + t + ".replacement", "$1_$2");
            }
            String name = "sc-" + major;
            connect.configureConnector(name, cfg);
            ConnectHarness.awaitRunning(connect, name, 1, "connector did not start");
            EndToEndTest.awaitSlotActive(pg, prefix + "_slot");
            script.runSteps();
            List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + prefix + ".\\E.*", Map.of(),
                    l -> l.stream().anyMatch(c -> c.topic().equals(prefix + ".public.sc_done")), Duration.ofSeconds(120));
            connect.deleteConnector(name);

            List<String> observed = new ArrayList<>();
            for (Change c : all) if (c.topic().equals(topic)) observed.add(describe(c.key(), c.value()));
            List<String> expected = new ArrayList<>();
            for (ObservedChange e : script.expected(capture)) expected.add(describe(e));
            assertEquals(String.join("\n", expected), String.join("\n", observed), "the schema change topic, in order");

            schemasComeFromSchemaChanges(all, topic);
            Map<Integer, TableContent> source = script.source();
            for (String label : List.of(SchemaScript.PLAIN, SchemaScript.P1, SchemaScript.P2, SchemaScript.DONE)) {
                TableContent want = source.get(script.oid(label));
                TableContent got = rebuilt(all, prefix + "." + want.schema() + "." + want.name(), want);
                assertEquals(want.canonicalRows(), got.canonicalRows(), label + " rebuilt from its topic");
            }
        }
    }

    /** The form both sides are compared in: what the record carries, derived from the catalog's expectation. */
    private static String describe(ObservedChange e) {
        List<String> shape = e.after() != null ? e.after() : e.before();
        List<String> cols = new ArrayList<>();
        if (shape != null) for (String c : shape) cols.add(c.substring(0, c.lastIndexOf(':', c.lastIndexOf(':') - 1)));
        else for (String c : e.created()) cols.add(c.substring(0, c.lastIndexOf(':')));
        String type = e.kind().equals("FIRST_SEEN") ? "CREATE" : e.kind();
        return e.kind() + "/" + type + " " + Integer.toUnsignedString(e.oid()) + " " + e.schema() + "." + e.table() + " " + cols
                + " +" + e.added() + " -" + e.dropped() + " renamed" + e.renamed() + " retyped" + e.retyped()
                + (e.keyChanged() ? " key" : "") + (e.replicaIdentityChanged() ? " identity" : "")
                + " ddl" + new ArrayList<>(new LinkedHashSet<>(e.ddlQueries()));
    }

    private static String describe(Struct key, Struct v) {
        Struct change = (Struct) v.getArray("tableChanges").get(0);
        Struct d = v.getStruct("difference");
        List<String> cols = new ArrayList<>();
        Struct table = change.getStruct("table");
        if (table != null) for (Object o : table.getArray("columns")) cols.add(((Struct) o).getString("name") + ":" + ((Struct) o).getInt32("nativeType"));
        List<String> renamed = new ArrayList<>();
        for (Object o : d.getArray("renamed")) renamed.add(((Struct) o).getString("from") + "->" + ((Struct) o).getString("to"));
        assertEquals(v.getString("schemaName"), key.getString("schemaName"));
        String ddl = v.getString("ddl");
        return d.getString("kind") + "/" + change.getString("type") + " " + d.getInt64("relationId") + " " + key.getString("schemaName")
                + "." + key.getString("tableName") + " " + cols + " +" + new LinkedHashSet<>(d.getArray("added")) + " -"
                + new LinkedHashSet<>(d.getArray("dropped")) + " renamed" + new LinkedHashSet<>(renamed) + " retyped"
                + new LinkedHashSet<>(d.getArray("retyped")) + (d.getBoolean("keyChanged") ? " key" : "")
                + (d.getBoolean("replicaIdentityChanged") ? " identity" : "") + " ddl" + (ddl == null ? List.of() : List.of(ddl.split("\n")));
    }

    /**
     * The tables' Value schemas carry no version (as Debezium's): each distinct one comes from a schema
     * change the topic told, so there are no more of them than schema change records.
     */
    private static void schemasComeFromSchemaChanges(List<Change> all, String topic) {
        Map<String, List<Schema>> byName = new HashMap<>();
        int distinct = 0;
        long changes = 0;
        for (Change c : all) {
            if (c.value() == null) continue;
            if (c.topic().equals(topic)) {
                changes++;
                continue;
            }
            Schema after = c.value().schema().field("after").schema();
            assertNull(after.version(), after.name() + " carries a version");
            List<Schema> seen = byName.computeIfAbsent(after.name(), k -> new ArrayList<>());
            if (!seen.contains(after)) {
                seen.add(after);
                distinct++;
            }
        }
        assertTrue(distinct > 10, "the script's changes gave new schemas: " + distinct);
        assertTrue(distinct <= changes, distinct + " Value schemas from " + changes + " schema change records");
    }

    /**
     * A plain table (integers, text, an enum) rebuilt from its topic: by key, or for a table without
     * one (REPLICA IDENTITY FULL, no primary key) by the whole old row; fields as PostgreSQL prints them.
     */
    private static TableContent rebuilt(List<Change> all, String topic, TableContent shape) {
        List<Map<String, String>> rows = new ArrayList<>();
        Map<String, Map<String, String>> byKey = new HashMap<>();
        for (Change c : all) {
            if (!c.topic().equals(topic) || c.value() == null) continue;
            Map<String, String> after = text(c.value().getStruct("after"));
            Map<String, String> before = text(c.value().getStruct("before"));
            Map<String, String> old = c.key() != null ? byKey.get(String.valueOf(c.key())) : before;
            switch (c.op()) {
                case "c", "r" -> rows.add(after);
                case "u" -> rows.set(indexOf(rows, old, topic), after);
                case "d" -> rows.remove(indexOf(rows, old, topic));
                default -> throw new AssertionError("unexpected op " + c.op());
            }
            if (c.key() != null) {
                if (after == null) byKey.remove(String.valueOf(c.key()));
                else byKey.put(String.valueOf(c.key()), after);
            }
        }
        assertFalse(rows.isEmpty(), topic);
        return new TableContent(shape.schema(), shape.name(), shape.columns(), rows);
    }

    private static int indexOf(List<Map<String, String>> rows, Map<String, String> row, String topic) {
        for (int i = 0; i < rows.size(); i++) if (rows.get(i) == row || rows.get(i).equals(row)) return i;
        throw new AssertionError(topic + ": no row " + row + " in " + rows);
    }

    private static Map<String, String> text(Struct s) {
        if (s == null) return null;
        Map<String, String> row = new LinkedHashMap<>();
        for (Field f : s.schema().fields()) row.put(f.name(), s.get(f) == null ? null : String.valueOf(s.get(f)));
        return row;
    }
}
