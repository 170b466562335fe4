package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One size formatter for slot list, top and the progress line: the same lag reads the same in each. */
class ByteSizesTest {
    @Test
    void unitsOf1024WithOneDecimal() {
        assertEquals("-", ByteSizes.of(null));
        assertEquals("0 B", ByteSizes.of(0L));
        assertEquals("1023 B", ByteSizes.of(1023L));
        assertEquals("1.0 kB", ByteSizes.of(1064L));
        assertEquals("10.0 kB", ByteSizes.of(10_240L));
        assertEquals("3.5 MB", ByteSizes.of(3_670_016L));
        assertEquals("2.0 GB", ByteSizes.of(2L << 30));
        assertEquals("-1.0 kB", ByteSizes.of(-1024L));
    }

    @Test
    void slotListAndTopShowTheSameLag() {
        // 15,000 bytes: slot list printed "15 kB" (pg_size_pretty's rounding) where top printed "14.6 kB".
        long lag = 15_000;
        Json.Obj slot = Json.object().put("slot_name", "s").put("slot_type", "logical").put("plugin", "pgoutput")
                .put("database", "app").put("active", false).put("active_pid", null).put("lag_bytes", lag)
                .put("wal_status", "reserved").put("restart_lsn", "0/1").put("confirmed_flush_lsn", "0/2");
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        SlotTable.print(List.of(slot), new PrintStream(b, true, StandardCharsets.UTF_8));
        String table = b.toString(StandardCharsets.UTF_8);
        String row = new TopView(10, false, false).row(TopViewTest.slot("s", lag, null), 200, false);
        assertTrue(table.contains(" 14.6 kB "), table);
        assertTrue(row.contains(" 14.6 kB "), row);
        assertTrue(table.strip().endsWith("(1 slot)"), table);
    }

    @Test
    void countsNameTheirNoun() {
        assertEquals("1 slot", Counts.of(1, "slot", "slots"));
        assertEquals("0 slots", Counts.of(0, "slot", "slots"));
        assertEquals("2 signals", Counts.of(2, "signal", "signals"));
    }
}
