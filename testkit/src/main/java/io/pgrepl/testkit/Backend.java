package io.pgrepl.testkit;

import java.util.Locale;

/** Where servers come from: extracted embedded binaries (default) or Docker via Testcontainers. */
public enum Backend {
    EMBEDDED,
    DOCKER;

    /** {@code -Dpg.backend=embedded|docker}; embedded when unset. */
    public static Backend fromSystemProperty() {
        String value = System.getProperty("pg.backend", "embedded").trim().toLowerCase(Locale.ROOT);
        return switch (value) {
            case "", "embedded" -> EMBEDDED;
            case "docker", "testcontainers" -> DOCKER;
            default -> throw new IllegalArgumentException("pg.backend must be embedded or docker, not " + value);
        };
    }
}
