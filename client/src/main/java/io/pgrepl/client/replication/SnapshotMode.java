package io.pgrepl.client.replication;

/** What CREATE_REPLICATION_SLOT does with the snapshot of a logical slot. */
public enum SnapshotMode {
    /** Export it for {@code SET TRANSACTION SNAPSHOT} in another session (server default). */
    EXPORT("export", "EXPORT_SNAPSHOT"),
    /** Use it in the current transaction (must be the first command of a REPEATABLE READ transaction). */
    USE("use", "USE_SNAPSHOT"),
    /** Neither: for pure streaming clients. */
    NOTHING("nothing", "NOEXPORT_SNAPSHOT");

    final String option;
    final String legacyKeyword;

    SnapshotMode(String option, String legacyKeyword) {
        this.option = option;
        this.legacyKeyword = legacyKeyword;
    }
}
