package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import io.pgrepl.testkit.schema.ObservedChange;
import io.pgrepl.testkit.schema.Rebuilt;
import io.pgrepl.testkit.schema.SchemaScript;
import io.pgrepl.testkit.schema.SchemaScriptRun;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code pgrepl ddl install} and {@code pgrepl stream --schema-changes} through {@link SchemaScript}:
 * the schema lines of both formats equal what the catalog said at each step (json: in commit order,
 * protocol: in stream order; the script commits one transaction at a time, so both are the same),
 * every json change line names exactly the columns of its table's last schema line, and the tables
 * rebuilt from the protocol format's exact text values equal the source at the end. 18 with DDL
 * capture; 10, where {@code ddl install} is refused, without.
 */
class SchemaChangesCommandTest {
    @PgMatrixTest(newestAndOldest = true)
    void schemaLinesSayWhatTheCatalogSays(PgServer s) throws Exception {
        boolean capture = s.majorVersion() >= 14;
        String url = Cli.url(s);
        assertEquals(0, run("ddl", "uninstall", url).rc());
        Cli.Result install = run("ddl", "install", url);
        if (capture) {
            assertEquals(0, install.rc(), install.err());
            JsonNode status = Cli.parse(install.out());
            assertEquals("enabled", status.get("ddl_capture").asText(), install.out());
            assertTrue(status.get("reaches_pgoutput").asBoolean());
        } else {
            assertEquals(1, install.rc(), install.out());
            assertTrue(install.err().contains("DDL capture needs PostgreSQL 14 or later"), install.err());
            assertEquals("not_installed", Cli.parse(run("ddl", "status", url).out()).get("ddl_capture").asText());
        }
        SchemaScriptRun script = SchemaScriptRun.setUp(s, "postgres");
        for (String slot : List.of("sc_cli_json", "sc_cli_protocol")) {
            s.dropReplicationSlotIfExists(slot);
            s.sql("postgres", "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        }
        script.runSteps();
        try {
            Cli.Result json = run("stream", url, "-S", "sc_cli_json", "-P", SchemaScript.PUBLICATION, "--schema-changes",
                    "--idle-exit", "2", "-v");
            assertEquals(0, json.rc(), json.err());
            assertTrue(json.err().contains(capture ? "DDL capture installed" : "from Relation messages only"), json.err());
            List<ObservedChange> events = new ArrayList<>();
            Map<Integer, Set<String>> columns = new HashMap<>();
            Map<String, Integer> byName = new HashMap<>();
            for (JsonNode line : json.lines()) {
                String type = line.get("type").asText();
                assertTrue(!type.equals("message"), "DDL capture's messages print as schema lines only: " + line);
                if (type.equals("schema")) {
                    ObservedChange c = observed(line);
                    events.add(c);
                    if (c.after() != null) columns.put(c.oid(), names(line.get("after")));
                    byName.put(c.schema() + "." + c.table(), c.oid());
                } else if (type.equals("insert") || type.equals("update") || type.equals("delete")) {
                    Integer oid = byName.get(line.get("schema").asText() + "." + line.get("table").asText());
                    Set<String> have = oid == null ? null : columns.get(oid);
                    assertTrue(have != null, "a change before its table's schema line: " + line);
                    for (String part : List.of("new", "old")) {
                        if (line.has(part)) {
                            Set<String> names = new HashSet<>();
                            line.get(part).fieldNames().forEachRemaining(names::add);
                            if (line.has("unchanged_toast")) line.get("unchanged_toast").forEach(n -> names.add(n.asText()));
                            assertEquals(have, names, "the columns of " + line);
                        }
                    }
                }
            }
            script.assertEvents("pgrepl stream --schema-changes (json)", events, capture);

            Cli.Result protocol = run("stream", url, "-S", "sc_cli_protocol", "-P", SchemaScript.PUBLICATION, "--format", "protocol",
                    "--schema-changes", "--idle-exit", "2");
            assertEquals(0, protocol.rc(), protocol.err());
            List<ObservedChange> streamOrder = new ArrayList<>();
            Rebuilt rebuilt = new Rebuilt(!capture);
            for (JsonNode line : protocol.lines()) {
                switch (line.get("type").asText()) {
                    case "schema" -> {
                        ObservedChange c = observed(line);
                        streamOrder.add(c);
                        rebuilt.schema(c);
                    }
                    case "insert" -> rebuilt.insert(line.get("relation_id").asInt(), values(line.get("new")));
                    case "update" -> rebuilt.update(line.get("relation_id").asInt(),
                            line.has("old") ? values(line.get("old")) : line.has("key") ? values(line.get("key")) : null,
                            values(line.get("new")));
                    case "delete" -> rebuilt.delete(line.get("relation_id").asInt(),
                            values(line.has("old") ? line.get("old") : line.get("key")));
                    default -> { }
                }
            }
            script.assertEvents("pgrepl stream --schema-changes --format protocol", streamOrder, capture);
            script.assertRebuilt("pgrepl stream --format protocol", rebuilt, capture);
        } finally {
            for (String slot : List.of("sc_cli_json", "sc_cli_protocol")) s.dropReplicationSlot(slot);
            run("ddl", "uninstall", url);
        }
    }

    static ObservedChange observed(JsonNode l) {
        List<String> queries = new ArrayList<>();
        l.get("ddl").forEach(d -> queries.add(d.get("query").isNull() ? null : d.get("query").asText()));
        List<String> created = new ArrayList<>();
        if (l.has("definition")) {
            l.get("definition").get("columns").forEach(c -> created.add(c.get("name").asText() + ":" + c.get("type_oid").asLong() + ":"
                    + c.get("type_modifier").asInt()));
        }
        Set<String> renamed = new LinkedHashSet<>();
        l.get("renamed").forEach(r -> renamed.add(r.get("from").asText() + "->" + r.get("to").asText()));
        Set<String> retyped = new LinkedHashSet<>();
        l.get("retyped").forEach(r -> retyped.add(r.get("column").asText()));
        return new ObservedChange(l.get("change").asText().toUpperCase(java.util.Locale.ROOT), (int) l.get("relation_id").asLong(),
                l.get("schema").asText(), l.get("table").asText(), shape(l.get("before")), shape(l.get("after")), texts(l.get("added")),
                texts(l.get("dropped")), renamed, retyped, l.get("key_changed").asBoolean(), l.get("replica_identity_changed").asBoolean(),
                SchemaScriptRun.dedupe(queries), created);
    }

    private static List<String> shape(JsonNode s) {
        if (s == null || s.isNull()) return null;
        List<String> out = new ArrayList<>();
        s.get("columns").forEach(c -> out.add(c.get("name").asText() + ":" + c.get("type_oid").asLong() + ":"
                + c.get("type_modifier").asInt() + ":" + (c.get("key").asBoolean() ? 1 : 0)));
        return out;
    }

    private static Set<String> names(JsonNode shape) {
        Set<String> out = new HashSet<>();
        shape.get("columns").forEach(c -> out.add(c.get("name").asText()));
        return out;
    }

    private static Set<String> texts(JsonNode a) {
        Set<String> out = new LinkedHashSet<>();
        a.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** A protocol-format tuple: the server's exact text, null for NULL. */
    private static Map<String, String> values(JsonNode tuple) {
        Map<String, String> m = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = tuple.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            m.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
        }
        return m;
    }
}
