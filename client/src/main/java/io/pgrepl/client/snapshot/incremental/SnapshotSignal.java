package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.replication.QualifiedName;

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
        java.util.Objects.requireNonNull(type, "type");
        java.util.Objects.requireNonNull(snapshotType, "snapshotType");
        dataCollections = List.copyOf(dataCollections);
        additionalConditions = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(additionalConditions));
    }

    /**
     * Whether a table is one of this signal's data collections (see {@link #names}). A signal
     * without data collections matches every table.
     *
     * @param table the table
     * @return whether the signal names the table
     */
    public boolean matches(QualifiedName table) {
        if (dataCollections.isEmpty()) return true;
        for (String c : dataCollections) {
            if (names(c, table)) return true;
        }
        return false;
    }

    /**
     * {@link #matches(QualifiedName)} for a table written as PostgreSQL reads it, e.g. the
     * canonical {@code schema.table} of {@link QualifiedName#toString()}.
     *
     * @param schemaTable the table's name
     * @return whether the signal names the table
     */
    public boolean matches(String schemaTable) {
        QualifiedName q = parsed(schemaTable, true);
        if (q != null) return matches(q);
        if (dataCollections.isEmpty()) return true;
        return dataCollections.stream().anyMatch(c -> c.equals(schemaTable));
    }

    /**
     * The additional condition for a table: the one given under a name of the table, else the
     * first whose data collection matches it as a regular expression.
     *
     * @param table the table
     * @return the condition, or null for none
     */
    public String conditionFor(QualifiedName table) {
        for (Map.Entry<String, String> e : additionalConditions.entrySet()) {
            if (table.equals(parsed(e.getKey(), true)) || table.equals(parsed(e.getKey(), false))) return e.getValue();
        }
        for (Map.Entry<String, String> e : additionalConditions.entrySet()) {
            if (fullMatch(e.getKey(), table.unquoted(), java.util.regex.Pattern.CASE_INSENSITIVE)) return e.getValue();
        }
        return null;
    }

    /**
     * {@link #conditionFor(QualifiedName)} for a table written as PostgreSQL reads it.
     *
     * @param schemaTable the table's name
     * @return the condition, or null for none
     */
    public String conditionFor(String schemaTable) {
        QualifiedName q = parsed(schemaTable, true);
        return q != null ? conditionFor(q) : additionalConditions.get(schemaTable);
    }

    /**
     * Whether data collection {@code entry} names {@code table}: read as PostgreSQL reads a name
     * (unquoted parts folded to lower case, quoted parts as written), or with unquoted parts as
     * written (Debezium's reading: {@code Sales."Order-Items"} is schema {@code Sales}), or as a
     * regular expression matched against the whole {@code schema.table} without quotes.
     *
     * @param entry one data collection of a signal
     * @param table the table
     * @return whether {@code entry} names {@code table}
     */
    public static boolean names(String entry, QualifiedName table) {
        return table.equals(parsed(entry, true)) || table.equals(parsed(entry, false)) || fullMatch(entry, table.unquoted(), 0);
    }

    /**
     * The tables data collection {@code entry} means: the one it names as PostgreSQL reads it,
     * else the one it names with unquoted parts as written (Debezium's reading), among
     * {@code tables}; else the {@code published} tables it matches as a regular expression.
     *
     * @param entry     one data collection of a signal
     * @param tables    the database's tables
     * @param published the tables of the stream's publications
     * @return the tables, none when it matches nothing
     */
    public static List<QualifiedName> resolve(String entry, java.util.Collection<QualifiedName> tables,
                                              java.util.Collection<QualifiedName> published) {
        QualifiedName q = parsed(entry, true);
        if (q != null && tables.contains(q)) return List.of(q);
        q = parsed(entry, false);
        if (q != null && tables.contains(q)) return List.of(q);
        return published.stream().filter(t -> fullMatch(entry, t.unquoted(), 0)).toList();
    }

    private static QualifiedName parsed(String entry, boolean fold) {
        try {
            return fold ? QualifiedName.parse(entry) : QualifiedName.parseAsWritten(entry);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * A data collection read as a regular expression (Debezium's reading), matched against the
     * whole name. A name that is no valid expression matches only itself. A signal comes from
     * outside, so matching runs on a step budget: an expression that backtracks without end
     * matches nothing instead of holding the stream.
     */
    private static boolean fullMatch(String regex, String name, int flags) {
        java.util.regex.Pattern p;
        try {
            p = java.util.regex.Pattern.compile(regex, flags);
        } catch (java.util.regex.PatternSyntaxException e) {
            return false;
        }
        try {
            return p.matcher(new Budgeted(name, 1_000_000)).matches();
        } catch (Budgeted.Exhausted e) {
            return false;
        }
    }

    /** A name whose characters may be read only so many times in all. */
    private static final class Budgeted implements CharSequence {
        static final class Exhausted extends RuntimeException {
            private static final long serialVersionUID = 1L;

            Exhausted() {
                super(null, null, false, false);
            }
        }

        private final String s;
        private final int[] budget;

        Budgeted(String s, int budget) {
            this(s, new int[] {budget});
        }

        private Budgeted(String s, int[] budget) {
            this.s = s;
            this.budget = budget;
        }

        @Override
        public char charAt(int i) {
            if (--budget[0] < 0) throw new Exhausted();
            return s.charAt(i);
        }

        @Override
        public int length() {
            return s.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Budgeted(s.substring(start, end), budget);
        }

        @Override
        public String toString() {
            return s;
        }
    }
}
