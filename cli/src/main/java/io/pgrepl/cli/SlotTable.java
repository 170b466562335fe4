package io.pgrepl.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code pgrepl slot list} for a person at a terminal: psql's aligned layout, the lag as {@link ByteSizes}
 * (as top shows it), the columns that fit what operators look at first. Scripts get the JSON (the default when
 * stdout is not a terminal, or with --json), which has every field.
 */
final class SlotTable {
    private static final String[] HEADERS = {"slot_name", "type", "plugin", "database", "active", "lag", "wal_status",
        "restart_lsn", "confirmed_flush_lsn"};

    private SlotTable() {}

    static void print(List<Json.Obj> slots, PrintStream out) {
        List<String[]> rows = new ArrayList<>();
        for (Json.Obj s : slots) {
            Object pid = s.get("active_pid");
            rows.add(new String[] {
                text(s.get("slot_name")), text(s.get("slot_type")), text(s.get("plugin")), text(s.get("database")),
                Boolean.TRUE.equals(s.get("active")) ? "yes" + (pid == null ? "" : " (pid " + pid + ")") : "no",
                s.get("lag_bytes") instanceof Long l ? ByteSizes.of(l) : "", text(s.get("wal_status")),
                text(s.get("restart_lsn")), text(s.get("confirmed_flush_lsn"))});
        }
        int[] width = new int[HEADERS.length];
        for (int i = 0; i < HEADERS.length; i++) {
            width[i] = HEADERS[i].length();
            for (String[] r : rows) width[i] = Math.max(width[i], r[i].length());
        }
        out.println(line(HEADERS, width, ' ', " | "));
        String[] rule = new String[HEADERS.length];
        java.util.Arrays.fill(rule, "");
        out.println(line(rule, width, '-', "-+-"));
        for (String[] r : rows) out.println(line(r, width, ' ', " | "));
        out.println("(" + Counts.of(rows.size(), "slot", "slots") + ")");
    }

    private static String line(String[] cells, int[] width, char pad, String sep) {
        StringBuilder b = new StringBuilder().append(pad);
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) b.append(sep);
            b.append(cells[i]).append(String.valueOf(pad).repeat(width[i] - cells[i].length()));
        }
        return b.toString().stripTrailing();
    }

    private static String text(Object v) {
        return v == null ? "" : CliErrors.shown(v.toString());
    }
}
