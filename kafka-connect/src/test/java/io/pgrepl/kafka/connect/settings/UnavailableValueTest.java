package io.pgrepl.kafka.connect.settings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.UnchangedToastedPlaceholder;
import io.debezium.relational.Column;
import io.debezium.relational.mapping.MaskStrings;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.Schema;
import org.junit.jupiter.api.Test;

/** unavailable.value.placeholder against Debezium 3.6.1's own reading of it, and its hash. */
class UnavailableValueTest {
    @Test
    void readAsDebeziumReadsIt() {
        for (String setting : List.of("__debezium_unavailable_value", "hex:5f5f746f6173745f5f", "hex:", "ünï 😀")) {
            PostgresConnectorConfig theirs = new PostgresConnectorConfig(Configuration.from(Map.of(
                    "unavailable.value.placeholder", setting, "topic.prefix", "t", "database.dbname", "d")));
            UnavailableValue ours = UnavailableValue.of(setting);
            assertArrayEquals(theirs.getUnavailableValuePlaceholder(), ours.bytes(), setting);
            assertEquals(new UnchangedToastedPlaceholder(theirs).getToastPlaceholderString(), ours.text(), setting);
            assertEquals(ByteBuffer.wrap(ours.bytes()), ours.in(Schema.OPTIONAL_BYTES_SCHEMA, x -> "cut"), "bytes stay whole");
        }
        assertEquals("__toast__", UnavailableValue.of("hex:5f5f746f6173745f5f").text());
    }

    /** The hash of a hex placeholder is Debezium's hash of its text, not of the setting as written. */
    @Test
    void aHashedColumnsPlaceholderIsDebeziumsHash() {
        String setting = "hex:5f5f746f6173745f5f";
        TableShape shape = ColumnRules.from(Map.of("column.mask.hash.v2.SHA-256.with.salt.s", "public.t.c"))
                .table("public", "t", List.of(new ColumnInfo(0, "c", 25, -1)));
        Column text = Column.editor().name("c").type("text").jdbcType(Types.VARCHAR).length(Integer.MAX_VALUE).create();
        Object theirs = new MaskStrings("s".getBytes(StandardCharsets.UTF_8), "SHA-256", MaskStrings.HashingByteArrayStrategy.V2)
                .create(text).convert("__toast__");
        assertEquals(theirs, UnavailableValue.of(setting).in(Schema.OPTIONAL_STRING_SCHEMA, shape.transform(0)));
    }

    @Test
    void aHexPlaceholderThatIsNotHexIsRefusedOnItsKey() {
        for (String bad : List.of("hex:5f5", "hex:zz")) {
            Map<String, List<String>> p = SettingsCheck.problems(Map.of("unavailable.value.placeholder", bad), new ConfigDef());
            assertTrue(p.containsKey("unavailable.value.placeholder") && p.get("unavailable.value.placeholder").get(0)
                    .contains("hex digits"), p.toString());
        }
        assertTrue(!SettingsCheck.problems(Map.of("unavailable.value.placeholder", "hex:00ff"), new ConfigDef())
                .containsKey("unavailable.value.placeholder"));
    }
}
