package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.debezium.relational.Column;
import io.debezium.relational.mapping.MaskStrings;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The column and capture settings end to end, on real servers (18 and 10), a real Kafka and
 * Connect worker, on all three paths a row takes: the COPY snapshot, an incremental snapshot, and
 * the stream. Masked, hashed, truncated and excluded values (varchar(n), char(n), text TOASTed past
 * 2 kB, NULLs, a quoted mixed-case table and column, REPLICA IDENTITY FULL so before images carry
 * every column) must never appear in any byte of any key or value written, and what is sent
 * instead must equal what Debezium's own masking classes make of the server's values.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ColumnSettingsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SALT = "pepper.ü";
    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("cols", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    PgServer server(int major) {
        return servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
    }

    /** A row's secrets: every one is a marker that must not appear in any record. */
    private static String rowValues(int id) {
        return "(" + id + ", 'NAMESECRET" + id + "', 'mail" + id + "@SECRETMAIL', 'SSN" + id + "XXXX', 'short'"
                + " || repeat('NOTESECRET', 3000), ARRAY['tag" + id + "', NULL], " + id + ".25, '2024-01-02 03:04:05.678')";
    }

    private static Map<String, String> config(PgServer pg, String p) {
        Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
        String people = "public\\." + p + "_people"; // the table is "<p>_People": Debezium's expressions ignore case
        c.put("table.include.list", "public\\." + p + "_.*," + p + "_hidden\\..*");
        c.put("schema.exclude.list", p + "_HIDDEN");
        c.put("column.exclude.list", people + "\\.ssn");
        c.put("column.mask.with.6.chars", people + "\\.full name");
        c.put("column.mask.hash.v2.SHA-256.with.salt." + SALT, people + "\\.email");
        c.put("column.truncate.to.5.chars", people + "\\.notes");
        c.put("message.key.columns", people + ":email");
        c.put("column.propagate.source.type", people + "\\.amount");
        c.put("datatype.propagate.source.type", ".*\\.timestamp");
        c.put("signal.data.collection", "public." + p + "_signal");
        return c;
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void hiddenValuesNeverReachATopicOnAnyPath(int major) throws Exception {
        PgServer pg = server(major);
        String p = "cols" + major;
        EndToEndTest.sql(pg, "CREATE TABLE \"" + p + "_People\" (id int PRIMARY KEY, \"Full Name\" varchar(40), email text,"
                + " ssn char(12), notes text, tags text[], amount numeric(10,2), ts timestamp(3));"
                + "ALTER TABLE \"" + p + "_People\" REPLICA IDENTITY FULL;"
                + "INSERT INTO \"" + p + "_People\" VALUES " + rowValues(1) + ", " + rowValues(2) + ";"
                + "INSERT INTO \"" + p + "_People\" (id) VALUES (3);"
                + "CREATE TABLE " + p + "_other (id int PRIMARY KEY);"
                + "CREATE SCHEMA " + p + "_hidden; CREATE TABLE " + p + "_hidden.t (id int PRIMARY KEY, v text);"
                + "INSERT INTO " + p + "_hidden.t VALUES (1, 'HIDDENSCHEMA');"
                + "CREATE TABLE " + p + "_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))");
        // Connector "copy": the COPY snapshot, then the stream. Connector "inc": the initial load as an
        // incremental snapshot, then the stream, skipping updates.
        Map<String, String> copy = config(pg, p + "c");
        copy.put("table.include.list", "public\\." + p + "_.*," + p + "_hidden\\..*");
        copy.put("snapshot.mode", "initial");
        copy.put("messages.topic", p + "c.messages");
        copy.put("message.prefix.exclude.list", "secret.*");
        rename(copy, p + "c", p);
        Map<String, String> inc = config(pg, p + "i");
        rename(inc, p + "i", p);
        inc.put("snapshot.mode", "initial");
        inc.put("snapshot.initial.method", "incremental");
        inc.put("incremental.snapshot.chunk.size", "1");
        inc.put("skipped.operations", "u");
        // Both connectors write messages (inc to <prefix>.message, Debezium's default topic): both leave the secret prefix out.
        inc.put("message.prefix.exclude.list", "secret.*");
        // Notifications name keys (last_processed_key, maximum_key): a masked key must stay masked there too.
        inc.put("notification.enabled.channels", "sink");
        inc.put("notification.sink.topic.name", p + "i.notifications");
        connect.configureConnector(p + "c", copy);
        connect.configureConnector(p + "i", inc);
        ConnectHarness.awaitRunning(connect, p + "c", 1, "copy connector did not start");
        ConnectHarness.awaitRunning(connect, p + "i", 1, "incremental connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "c_slot");
        EndToEndTest.awaitSlotActive(pg, p + "i_slot");

        String t = "\"" + p + "_People\"";
        EndToEndTest.sql(pg, "INSERT INTO " + t + " VALUES " + rowValues(4) + ";"
                + "UPDATE " + t + " SET amount = amount + 1 WHERE id = 1;" // notes unchanged (TOASTed): FULL sends the old value
                + "UPDATE " + t + " SET \"Full Name\" = 'NAMESECRET5', email = 'mail5@SECRETMAIL' WHERE id = 2;"
                + "DELETE FROM " + t + " WHERE id = 4;"
                + "INSERT INTO " + p + "_hidden.t VALUES (2, 'HIDDENSCHEMA');"
                + "TRUNCATE " + p + "_other;"
                + (major >= 14 ? "SELECT pg_logical_emit_message(true, 'SecretPrefix', 'x');"
                        + "SELECT pg_logical_emit_message(true, 'kept', 'x');" : "")
                + "INSERT INTO " + t + " (id, email) VALUES (99, 'END')");
        String endHash = hash("END");
        List<Change> all = ConnectHarness.readUntil(connect, p + "[ci]\\..*", Map.of(),
                // Topics are read in no set order: the kept message (14+) and the truncate (11+), written before the end row, are waited for too.
                l -> l.stream().filter(c -> c.value() != null && c.topic().endsWith("_People") && "c".equals(c.op())
                        && endHash.equals(c.key().get("email"))).count() == 2
                        && (major < 14 || l.stream().anyMatch(c -> c.topic().equals(p + "c.messages")))
                        && (major < 11 || l.stream().anyMatch(c -> c.topic().startsWith(p + "i.") && "t".equals(c.op()))),
                Duration.ofSeconds(120));
        connect.deleteConnector(p + "c");
        connect.deleteConnector(p + "i");

        // Nothing hidden in any byte: values (schemas included) and keys.
        int records = 0;
        for (Change c : all) {
            String raw = c.rawValue() == null ? "" : new String(c.rawValue(), StandardCharsets.UTF_8);
            String key = String.valueOf(c.key());
            for (String secret : List.of("NAMESECRET", "SECRETMAIL", "SSN", "NOTESECRET", "HIDDENSCHEMA", "SecretPrefix")) {
                assertFalse(raw.contains(secret) || key.contains(secret), secret + " leaked in " + c.topic() + " " + c.op()
                        + ": " + raw.substring(0, Math.min(raw.length(), 400)));
            }
            records++;
        }
        assertTrue(records > 10, "records read: " + records);
        List<JsonNode> named = new ArrayList<>();
        for (Change c : all) {
            if (!c.topic().equals(p + "i.notifications")) continue;
            JsonNode data = JSON.readTree(c.rawValue()).get("payload").get("additional_data");
            if (data != null && data.has("last_processed_key") && !data.get("last_processed_key").asText().equals("<null>")) named.add(data);
        }
        assertFalse(named.isEmpty(), "notifications named a processed key");
        Set<String> hashed = new java.util.HashSet<>(List.of(hash("END"), hash("mail5@SECRETMAIL"), "<null>"));
        for (int id = 1; id <= 4; id++) hashed.add(hash("mail" + id + "@SECRETMAIL"));
        for (JsonNode d : named) {
            // The key is message.key.columns' email, hashed as in the records' keys.
            assertTrue(hashed.contains(d.get("last_processed_key").asText()), d.toString());
            assertTrue(hashed.contains(d.get("maximum_key").asText()), d.toString());
        }
        Set<String> topics = new TreeSet<>();
        all.forEach(c -> topics.add(c.topic()));
        assertFalse(topics.stream().anyMatch(x -> x.contains("_hidden")), topics.toString());
        if (major >= 14) { // message.prefix.exclude.list kept SecretPrefix out (above), not the others
            assertTrue(all.stream().anyMatch(c -> c.topic().equals(p + "c.messages")
                    && new String(c.rawValue(), StandardCharsets.UTF_8).contains("\"prefix\":\"kept\"")), topics.toString());
        }

        // What was sent instead, path by path: Debezium's masks of the server's values.
        String table = "public." + p + "_People";
        Map<String, List<JsonNode>> byPath = new HashMap<>();
        for (Change c : all) {
            if (c.value() == null || !c.topic().endsWith(table)) continue;
            JsonNode v = JSON.readTree(c.rawValue()).get("payload");
            String path = c.topic().startsWith(p + "c.") ? "c" : "i";
            String source = v.get("source").get("snapshot").asText();
            byPath.computeIfAbsent(path + ":" + v.get("op").asText() + ":" + (source.equals("incremental") ? "inc" : ""),
                    k -> new ArrayList<>()).add(v);
            for (String image : List.of("before", "after")) {
                JsonNode row = v.get(image);
                if (row == null || row.isNull()) continue;
                assertFalse(row.has("ssn"), "excluded column sent: " + row);
                int id = row.get("id").asInt();
                Row server = EndToEndTest.query(pg, "SELECT 'NAMESECRET' || " + id + ", 'mail' || " + id + " || '@SECRETMAIL',"
                        + " left('short' || repeat('NOTESECRET', 3000), 5)").get(0);
                if (id == 3 || id == 99) {
                    assertTrue(row.get("Full Name").isNull(), row.toString()); // NULL stays NULL
                    continue;
                }
                assertEquals("******", row.get("Full Name").asText(), row.toString());
                // Row 2's email (the key) changes while the snapshots run: a read may see either value, and the
                // update is sent as a delete of the old key and a create of the new one.
                Set<String> emails = id != 2 ? Set.of(hash(server.get(1))) : Set.of(hash(server.get(1)), hash("mail5@SECRETMAIL"));
                assertTrue(emails.contains(row.get("email").asText()), row.toString());
                assertEquals(server.get(2), row.get("notes").asText(), row.toString());
                assertEquals(2, row.get("tags").size(), row.toString());
            }
        }
        assertEquals(3, byPath.get("c:r:").size(), byPath.keySet().toString()); // COPY reads of rows 1-3
        // Incremental reads of rows 1-3, and of a streamed row its chunk met (the snapshot runs beside the stream).
        assertTrue(byPath.get("i:r:inc").stream().map(v -> v.get("after").get("id").asInt()).collect(java.util.stream.Collectors.toSet())
                .containsAll(Set.of(1, 2, 3)), byPath.get("i:r:inc").toString());
        for (String path : List.of("c", "i")) {
            assertEquals(path.equals("c") ? 3 : 2, byPath.get(path + ":c:").size(), path); // rows 4 and 99 (and 2's new key)
            assertEquals(path.equals("c") ? 2 : 1, byPath.get(path + ":d:").size(), path); // row 4 (and 2's old key)
        }
        assertEquals(1, byPath.get("c:u:").size()); // row 1; row 2's is a key change (d, c)
        assertNull(byPath.get("i:u:"), "skipped.operations=u sent updates");
        assertFalse(all.stream().anyMatch(c -> c.topic().startsWith(p + "c.") && "t".equals(c.op())),
                "truncates are skipped by default");
        assertTrue(major < 11 || all.stream().anyMatch(c -> c.topic().startsWith(p + "i.") && "t".equals(c.op())),
                "skipped.operations=u skipped truncates"); // pgoutput sends truncates from 11 on
        // The key is message.key.columns' (the hashed email), and the schemas say what was done.
        // Both connectors, so the incremental one's chunk reads too: a read's relation has the columns' typmods.
        for (String path : List.of("c.", "i.")) {
            JsonNode schema = JSON.readTree(all.stream().filter(c -> c.value() != null && c.topic().equals(p + path + table)
                    && "r".equals(c.op())).findFirst().orElseThrow().rawValue()).get("schema");
            String fields = schema.toString();
            assertTrue(fields.contains("\"masked\":\"true\"") && fields.contains("\"truncateLength\":\"5\""), fields);
            // column.propagate.source.type and datatype.propagate.source.type: numeric(10,2) and timestamp(3).
            for (String param : List.of("\"__debezium.source.column.type\":\"NUMERIC\"", "\"__debezium.source.column.length\":\"10\"",
                    "\"__debezium.source.column.scale\":\"2\"", "\"__debezium.source.column.type\":\"TIMESTAMP\"",
                    "\"__debezium.source.column.name\":\"ts\"")) {
                assertTrue(fields.contains(param), path + " read: " + param + " in " + fields);
            }
        }
    }

    /**
     * A table whose name Kafka refuses as a topic ({@code "Order Items"}, and a schema with a space):
     * the topic is Debezium's name for it (taken from Debezium's own naming strategies), on the
     * snapshot and the stream, with topic.naming.strategy's default and its Unicode variant.
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void tablesWithNamesKafkaRefusesGetDebeziumsTopics(int major) throws Exception {
        PgServer pg = server(major);
        String p = "names" + major;
        EndToEndTest.sql(pg, "CREATE SCHEMA \"" + p + " Sales\"; CREATE TABLE \"" + p + " Sales\".\"Order Items\" (id int PRIMARY KEY,"
                + " \"Ünï Col\" text); INSERT INTO \"" + p + " Sales\".\"Order Items\" VALUES (1, 'ü')");
        List<String> expected = new ArrayList<>();
        for (String strategy : List.of("io.debezium.schema.SchemaTopicNamingStrategy", "io.debezium.schema.SchemaUnicodeTopicNamingStrategy")) {
            String own = p + (strategy.contains("Unicode") ? "u" : "s");
            Map<String, String> c = EndToEndTest.connectorConfig(pg, own);
            c.put("table.include.list", p + " sales\\.order items");
            c.put("snapshot.mode", "initial");
            c.put("topic.naming.strategy", strategy);
            connect.configureConnector(own, c);
            java.util.Properties props = new java.util.Properties();
            props.put("topic.prefix", own);
            @SuppressWarnings("unchecked")
            io.debezium.spi.topic.TopicNamingStrategy<io.debezium.relational.TableId> theirs =
                    (io.debezium.spi.topic.TopicNamingStrategy<io.debezium.relational.TableId>) Class.forName(strategy)
                            .getConstructor(java.util.Properties.class).newInstance(props);
            expected.add(theirs.dataChangeTopic(new io.debezium.relational.TableId(null, p + " Sales", "Order Items")));
        }
        for (String own : List.of(p + "s", p + "u")) {
            ConnectHarness.awaitRunning(connect, own, 1, own + " did not start");
            EndToEndTest.awaitSlotActive(pg, own + "_slot");
        }
        EndToEndTest.sql(pg, "INSERT INTO \"" + p + " Sales\".\"Order Items\" VALUES (2, 'ï')");
        List<Change> all = ConnectHarness.readUntil(connect, p + "[su]\\..*", Map.of(),
                l -> l.stream().filter(c -> "c".equals(c.op())).count() == 2, Duration.ofSeconds(60));
        for (String own : List.of(p + "s", p + "u")) {
            connect.deleteConnector(own);
            assertEquals(Set.of("r:1", "c:2"), all.stream().filter(c -> c.topic().startsWith(own + ".") && c.value() != null)
                    .map(c -> c.op() + ":" + c.value().getStruct("after").get("id")).collect(java.util.stream.Collectors.toSet()), own);
        }
        assertEquals(new TreeSet<>(expected), all.stream().map(Change::topic).collect(java.util.stream.Collectors.toCollection(TreeSet::new)));
    }

    /**
     * The settings check through Connect's own REST validation (what its API and UIs show): a
     * mistyped key and a refused Debezium setting are errors on their keys.
     */
    @org.junit.jupiter.api.Test
    void refusalsShowInConnectsRestValidation() throws Exception {
        PgServer pg = server(18);
        Map<String, String> c = EndToEndTest.connectorConfig(pg, "restval");
        c.put("tabel.include.list", "public\\.x");
        c.put("transaction.metadata.factory", "com.example.OwnTransactionMetadataFactory");
        c.put("name", "restval");
        var infos = connect.validateConnectorConfig(PgreplSourceConnector.class.getSimpleName(), c);
        Map<String, List<String>> errors = new HashMap<>();
        for (var ci : infos.configs()) {
            if (ci.configValue() != null && !ci.configValue().errors().isEmpty()) errors.put(ci.configValue().name(), ci.configValue().errors());
        }
        assertEquals(Set.of("tabel.include.list", "transaction.metadata.factory"), errors.keySet(), errors.toString());
        assertEquals(2, infos.errorCount());
        assertTrue(errors.get("tabel.include.list").get(0).contains("did you mean table.include.list?"), errors.toString());
        assertTrue(errors.get("transaction.metadata.factory").get(0).contains("transaction metadata"), errors.toString());
    }

    /** Debezium's hash (its own class) of {@code value}: the email column's v2 SHA-256 with the salt. */
    private static String hash(String value) {
        Column text = Column.editor().name("email").type("text").jdbcType(Types.VARCHAR).length(Integer.MAX_VALUE).create();
        return (String) new MaskStrings(SALT.getBytes(StandardCharsets.UTF_8), "SHA-256", MaskStrings.HashingByteArrayStrategy.V2)
                .create(text).convert(value);
    }

    /** The connector's own names (slot, publication, topics) under {@code own}, the tables under {@code tables}. */
    private static void rename(Map<String, String> c, String own, String tables) {
        c.replaceAll((k, v) -> k.equals("table.include.list") || k.startsWith("column.") || k.equals("message.key.columns")
                || k.equals("schema.exclude.list") || k.equals("signal.data.collection") || k.startsWith("datatype.") ? v.replace(own + "_", tables + "_")
                .replace(own.toUpperCase() + "_", tables.toUpperCase() + "_") : v);
    }
}
