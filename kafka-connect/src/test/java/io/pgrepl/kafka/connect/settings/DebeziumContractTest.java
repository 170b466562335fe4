package io.pgrepl.kafka.connect.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.debezium.config.Field;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.PgreplSourceConnector;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.junit.jupiter.api.Test;

/**
 * The settings contract against Debezium 3.6.1 itself: every property its PostgreSQL connector
 * defines is classified exactly once, every refused one is refused by validate() and start(), and
 * Kafka Connect's own keys pass.
 */
class DebeziumContractTest {
    /** Debezium's classes whose static fields are the PostgreSQL connector's settings. */
    private static final List<String> CONFIG_CLASSES = List.of(
            "io.debezium.connector.postgresql.PostgresConnectorConfig",
            "io.debezium.relational.RelationalDatabaseConnectorConfig",
            "io.debezium.config.CommonConnectorConfig",
            "io.debezium.schema.AbstractTopicNamingStrategy",
            "io.debezium.pipeline.signal.channels.KafkaSignalChannel",
            "io.debezium.pipeline.signal.channels.FileSignalChannel",
            "io.debezium.pipeline.notification.channels.SinkNotificationChannel");

    /** Honoured, not defined by pgrepl's ConfigDef here: the handling modes whose values the record building reads. */
    private static final Set<String> READ_BY_RECORD_BUILDING = Set.of("hstore.handling.mode", "interval.handling.mode");

    static Set<String> debeziumKeys() throws Exception {
        Set<String> keys = new TreeSet<>();
        for (Field f : io.debezium.connector.postgresql.PostgresConnectorConfig.ALL_FIELDS) keys.add(f.name());
        for (String cn : CONFIG_CLASSES) {
            for (java.lang.reflect.Field rf : Class.forName(cn).getDeclaredFields()) {
                if (!Modifier.isStatic(rf.getModifiers()) || rf.getType() != Field.class) continue;
                rf.setAccessible(true);
                keys.add(((Field) rf.get(null)).name());
            }
        }
        return keys;
    }

    @Test
    void everyDebeziumSettingIsClassifiedExactlyOnce() throws Exception {
        Set<String> keys = debeziumKeys();
        assertTrue(keys.size() > 140, "Debezium's field set looks too small: " + keys.size());
        List<String> unclassified = new ArrayList<>();
        List<String> twice = new ArrayList<>();
        for (String k : keys) {
            long n = DebeziumSettings.all().stream().filter(s -> s.covers(k)).count();
            if (n == 0) unclassified.add(k);
            if (n > 1) twice.add(k);
        }
        assertEquals(List.of(), unclassified, "Debezium settings without a classification");
        assertEquals(List.of(), twice, "Debezium settings classified more than once");
    }

    @Test
    void everyHonouredPlainSettingIsReadByTheConnector() {
        Set<String> defined = PgreplConnectorConfig.CONFIG_DEF.names();
        List<String> unread = new ArrayList<>();
        for (DebeziumSetting s : DebeziumSettings.all()) {
            boolean plain = !s.family();
            if (s.treatment() == Treatment.REFUSED || !plain || s.honoured() != null) continue;
            if (s.note().startsWith("no effect")) continue;
            if (!defined.contains(s.name()) && !READ_BY_RECORD_BUILDING.contains(s.name())) unread.add(s.name());
        }
        assertEquals(List.of(), unread, "honoured without being defined");
    }

    @Test
    void everyNoteIsOneSentenceAndEveryRefusalSaysWhatToDo() {
        for (DebeziumSetting s : DebeziumSettings.all()) {
            if (s.treatment() == Treatment.SAME) {
                assertTrue(s.note().isEmpty(), s.name());
            } else {
                assertTrue(!s.note().isBlank() && !s.note().matches(".*[^.]\\.\\s+[A-Z].*"), s.name() + ": " + s.note());
            }
            if (s.honoured() != null) assertTrue(!s.values().isBlank() && !s.otherwise().isBlank(), s.name());
        }
    }

    @Test
    void everyRefusedSettingIsRefusedByValidateAndStart() throws Exception {
        int checked = 0;
        for (String field : debeziumKeys()) {
            DebeziumSetting s = DebeziumSettings.find(field).orElseThrow(() -> new AssertionError(field));
            String key = field;
            String value;
            if (s.treatment() == Treatment.REFUSED) value = "x";
            else if (s.honoured() != null) value = "no-such-value-9";
            else continue;
            if (!s.covers(key) || key.contains("(")) key = "column.mask.with.5.chars"; // families: a concrete key
            Map<String, String> c = valid();
            c.put(key, value);
            List<String> errors = errorsOf(key, c);
            if (s.treatment() == Treatment.REFUSED || !s.honoured().test(value)) {
                assertEquals(1, errors.size(), key + ": " + errors);
                assertTrue(errors.get(0).startsWith(key), errors.get(0));
                assertThrows(ConfigException.class, () -> new PgreplSourceConnector().start(c), key);
                checked++;
            }
        }
        assertTrue(checked > 40, "refusals checked: " + checked); // a floor against a vacuous loop
    }

    @Test
    void kafkaConnectsOwnKeysPass() {
        Map<String, String> c = valid();
        for (String k : SourceConnectorConfig.configDef().names()) c.put(k, "x");
        for (String k : List.of("transforms.unwrap.type", "predicates.isTombstone.type", "key.converter.schemas.enable",
                "value.converter.schema.registry.url", "header.converter.x", "topic.creation.default.partitions",
                "producer.override.acks", "consumer.override.max.poll.records", "admin.override.request.timeout.ms",
                "errors.deadletterqueue.topic.name", "transaction.boundary.interval.ms")) {
            c.put(k, "x");
        }
        assertEquals(Map.of(), SettingsCheck.problems(c, PgreplConnectorConfig.CONFIG_DEF));
    }

    @Test
    void typosAndOtherConnectorsSettingsAreRefusedWithTheNearestKey() {
        Map<String, String> near = Map.of(
                "tabel.include.list", "table.include.list",
                "slot.nmae", "slot.name",
                "snapshot.modes", "snapshot.mode",
                "database.url ", "database.url",
                "topic.prefx", "topic.prefix",
                "incremental.snapshot.chunk.sizes", "incremental.snapshot.chunk.size");
        near.forEach((typo, meant) -> {
            Map<String, String> c = valid();
            c.put(typo, "1");
            List<String> errors = errorsOf(typo, c);
            assertEquals(1, errors.size(), typo);
            assertTrue(errors.get(0).contains("did you mean " + meant + "?"), errors.get(0));
        });
        // Another connector's settings under the families pgrepl and Debezium use: refused too.
        for (String other : List.of("database.history.kafka.topic", "snapshot.new.tables", "table.whitelist",
                "database.server.id", "message.key.columns.extra")) {
            Map<String, String> c = valid();
            c.put(other, "1");
            assertEquals(1, errorsOf(other, c).size(), other);
        }
        // Keys that do not look like a connector setting pass (annotations, a worker's own notes).
        Map<String, String> c = valid();
        c.put("owner", "team-a");
        c.put("description.text", "orders");
        assertEquals(Map.of(), SettingsCheck.problems(c, PgreplConnectorConfig.CONFIG_DEF));
    }

    @Test
    void aConnectorSettingRepeatedUnderDatabaseIsAcceptedAsDebeziumsDriverIgnoresIt() {
        // Debezium's TestHelper writes database.topic.prefix; Debezium hands it to pgJDBC, which ignores the name.
        Map<String, String> c = valid();
        c.put("database.topic.prefix", "other");
        c.put("database.slot.name", "other");
        assertEquals(Map.of(), SettingsCheck.problems(c, PgreplConnectorConfig.CONFIG_DEF));
        // A typo of one is still a typo.
        Map<String, String> typo = valid();
        typo.put("database.topic.prefx", "other");
        assertEquals(1, errorsOf("database.topic.prefx", typo).size());
    }

    @Test
    void aMistypedPasswordKeyIsRefusedWithoutItsValue() {
        Map<String, String> c = valid();
        c.put("database.pasword", "S3cr3t-Pw!");
        List<String> errors = errorsOf("database.pasword", c);
        assertTrue(errors.get(0).contains("did you mean database.password?"), errors.get(0));
        for (ConfigValue v : new PgreplSourceConnector().validate(c).configValues()) {
            assertTrue(!String.valueOf(v.value()).contains("S3cr3t") && !v.errorMessages().toString().contains("S3cr3t"), v.name());
        }
    }

    /** A configuration without refusals, whose server check fails fast (nothing listens on port 1). */
    static Map<String, String> valid() {
        Map<String, String> c = new HashMap<>();
        c.put("name", "contract");
        c.put("connector.class", PgreplSourceConnector.class.getName());
        c.put("database.url", "postgresql://postgres@127.0.0.1:1/postgres?connect_timeout=1");
        c.put("topic.prefix", "contract");
        return c;
    }

    /** The error messages validate() gives for {@code key}. */
    static List<String> errorsOf(String key, Map<String, String> c) {
        for (ConfigValue v : new PgreplSourceConnector().validate(c).configValues()) {
            if (v.name().equals(key)) return v.errorMessages();
        }
        return List.of();
    }
}
