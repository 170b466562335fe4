package io.pgrepl.testkit;

/** The {@code pg_ctl stop -m} modes a test may want. */
public enum StopMode {
    /** Roll back transactions, disconnect clients, write a shutdown checkpoint. */
    FAST("fast"),
    /** Crash-like: no checkpoint, recovery runs on the next start. */
    IMMEDIATE("immediate");

    private final String pgCtlMode;

    StopMode(String pgCtlMode) {
        this.pgCtlMode = pgCtlMode;
    }

    public String pgCtlMode() {
        return pgCtlMode;
    }
}
