package io.pgrepl.client;

/** The startup {@code replication} parameter: absent, {@code database} (logical walsender), {@code true} (physical). */
public enum ReplicationMode {
    /** An ordinary SQL connection (no {@code replication} parameter). */
    NONE(null),
    /** {@code replication=database}: a logical walsender connected to a database (SQL works too). */
    DATABASE("database"),
    /** {@code replication=true}: a physical walsender, WAL only. */
    PHYSICAL("true");

    private final String startupValue;

    ReplicationMode(String startupValue) {
        this.startupValue = startupValue;
    }

    /**
     * The value sent in the StartupMessage.
     *
     * @return {@code database}, {@code true}, or null when the parameter is omitted
     */
    public String startupValue() {
        return startupValue;
    }

    /**
     * Accepts libpq's spellings: database, true/on/yes/1, false/off/no/0.
     *
     * @param s the parameter's value
     * @return the mode
     * @throws IllegalArgumentException for any other value
     */
    public static ReplicationMode parse(String s) {
        return switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "database" -> DATABASE;
            case "true", "on", "yes", "1" -> PHYSICAL;
            case "false", "off", "no", "0" -> NONE;
            default -> throw new IllegalArgumentException("invalid replication value: \"" + s + "\"");
        };
    }
}
