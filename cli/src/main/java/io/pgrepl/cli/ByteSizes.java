package io.pgrepl.cli;

import java.util.Locale;

/**
 * Sizes for a person: one formatter for {@code slot list}, {@code top} and the stream's progress
 * line, so that the same lag reads the same everywhere. Units of 1024 with one decimal (fixed width
 * for top's columns), as {@code pg_size_pretty} names them (bytes shown as {@code B}).
 */
final class ByteSizes {
    private static final String[] UNITS = {"B", "kB", "MB", "GB", "TB", "PB"};

    private ByteSizes() {}

    /** {@code 512 B}, {@code 1.0 kB}, {@code 3.5 MB}; {@code -} for null (the server has no such value). */
    static String of(Long bytes) {
        if (bytes == null) return "-";
        double v = bytes;
        int u = 0;
        while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, UNITS[u]);
    }
}
