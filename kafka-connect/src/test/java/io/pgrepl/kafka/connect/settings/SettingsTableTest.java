package io.pgrepl.kafka.connect.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The migration guide's settings table is the one the contract writes. */
class SettingsTableTest {
    @Test
    void theGuidesTableIsTheContracts() throws Exception {
        Path doc = Path.of("..", "docs", "migrating-from-debezium.md");
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        int begin = text.indexOf(SettingsTable.BEGIN);
        int end = text.indexOf(SettingsTable.END);
        assertTrue(begin >= 0 && end > begin, "markers missing in " + doc);
        String table = text.substring(begin + SettingsTable.BEGIN.length() + 1, end);
        assertEquals(SettingsTable.markdown(), table, "docs/migrating-from-debezium.md is out of date: run"
                + " java -cp kafka-connect/target/classes:<kafka-clients jar> io.pgrepl.kafka.connect.settings.SettingsTable");
        for (DebeziumSetting s : DebeziumSettings.all()) assertTrue(table.contains("| `" + s.name() + "` |"), s.name());
    }
}
