package io.pgrepl.kafka.connect.settings;

import java.util.Locale;

/** skipped.operations: c, u, d and t, or none; Debezium's default skips truncates (t). */
public record SkippedOperations(boolean create, boolean update, boolean delete, boolean truncate) {
    public static SkippedOperations parse(String setting) {
        boolean c = false, u = false, d = false, t = false;
        String s = setting == null ? "" : setting.trim().toLowerCase(Locale.ROOT);
        if (s.isEmpty() || s.equals("none")) return new SkippedOperations(false, false, false, false);
        for (String op : s.split(",")) {
            switch (op.trim()) {
                case "c" -> c = true;
                case "u" -> u = true;
                case "d" -> d = true;
                case "t" -> t = true;
                case "none" -> throw new IllegalArgumentException("none cannot be combined with operations");
                default -> throw new IllegalArgumentException("unknown operation '" + op.trim() + "': c, u, d, t or none");
            }
        }
        return new SkippedOperations(c, u, d, t);
    }
}
