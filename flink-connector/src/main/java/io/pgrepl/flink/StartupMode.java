package io.pgrepl.flink;

/** Where a job that starts without state begins (Flink CDC's {@code scan.startup.mode} values). */
public enum StartupMode {
    /** Read the tables in parallel snapshot splits, then stream every change after them. */
    INITIAL("initial"),
    /** No snapshot: stream from the end of the WAL now (changes committed after the job started). */
    LATEST_OFFSET("latest-offset"),
    /** No snapshot: stream from the slot's confirmed position (the slot must exist). */
    COMMITTED_OFFSET("committed-offset"),
    /** The snapshot splits, then the changes committed while they were read, then the end: a bounded, exact image. */
    SNAPSHOT("snapshot");

    private final String option;

    StartupMode(String option) {
        this.option = option;
    }

    /** {@return the option value, as {@code scan.startup.mode} spells it} */
    public String option() {
        return option;
    }

    /**
     * The mode an option value names.
     *
     * @param value {@code initial}, {@code latest-offset}, {@code committed-offset} or {@code snapshot}
     * @return the mode
     * @throws IllegalArgumentException for any other value
     */
    public static StartupMode of(String value) {
        for (StartupMode m : values()) if (m.option.equalsIgnoreCase(value)) return m;
        throw new IllegalArgumentException("scan.startup.mode '" + value + "' is not one of initial, latest-offset,"
                + " committed-offset, snapshot");
    }

    /** {@return whether this mode reads the tables first} */
    public boolean snapshots() {
        return this == INITIAL || this == SNAPSHOT;
    }
}
