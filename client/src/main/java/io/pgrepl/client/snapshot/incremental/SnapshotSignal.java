package io.pgrepl.client.snapshot.incremental;

import java.util.List;
import java.util.Map;

/**
 * One incremental-snapshot signal, from a logical message, a signal table row, the CLI or the API.
 *
 * @param type                 execute, stop, pause or resume
 * @param dataCollections      the tables ({@code schema.table}, or a regular expression matched
 *                             against {@code schema.table} as Debezium allows); empty for all
 *                             (stop: every running snapshot; pause/resume always apply to all)
 * @param additionalConditions per data collection, a WHERE condition to add (insertion order kept)
 * @param snapshotType         {@code incremental} (the only type accepted)
 * @param id                   the signal's id (the signal table's id column, or the message's
 *                             {@code id}), or null
 * @param slot                 the slot the signal is meant for, or null for every stream that sees it
 * @param surrogateKey         a column to walk the chunks by instead of the primary key, or null
 */
public record SnapshotSignal(Type type, List<String> dataCollections, Map<String, String> additionalConditions,
                             String snapshotType, String id, String slot, String surrogateKey) {

    /** What the signal asks for, with the names Debezium's signal table uses. */
    public enum Type {
        /** {@code execute-snapshot}: start an incremental snapshot of the data collections. */
        EXECUTE("execute-snapshot"),
        /** {@code stop-snapshot}: abort the snapshot of the data collections (all when none given). */
        STOP("stop-snapshot"),
        /** {@code pause-snapshot}: stop reading chunks until resumed; the stream goes on. */
        PAUSE("pause-snapshot"),
        /** {@code resume-snapshot}: go on reading chunks after a pause. */
        RESUME("resume-snapshot");

        private final String signalName;

        Type(String signalName) {
            this.signalName = signalName;
        }

        /** {@return the name in a signal's type field, e.g. {@code execute-snapshot}} */
        public String signalName() {
            return signalName;
        }
    }

    /**
     * Copies the collections.
     *
     * @param type                 execute, stop, pause or resume
     * @param dataCollections      the tables, empty for all
     * @param additionalConditions per data collection, a WHERE condition
     * @param snapshotType         {@code incremental}
     * @param id                   the signal's id, or null
     * @param slot                 the target slot, or null
     * @param surrogateKey         the surrogate key column, or null
     */
    public SnapshotSignal {
        dataCollections = List.copyOf(dataCollections);
        additionalConditions = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(additionalConditions));
    }

    /**
     * Whether a table is one of this signal's data collections: equal to one, or fully matched by
     * one read as a regular expression. A signal without data collections matches every table.
     *
     * @param schemaTable the table as {@code schema.table}, unquoted
     * @return whether the signal names the table
     */
    public boolean matches(String schemaTable) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * The additional condition for a table: the one given under its exact name, else the first
     * whose data collection matches it as a regular expression.
     *
     * @param schemaTable the table as {@code schema.table}, unquoted
     * @return the condition, or null for none
     */
    public String conditionFor(String schemaTable) {
        throw new UnsupportedOperationException("not yet");
    }
}
