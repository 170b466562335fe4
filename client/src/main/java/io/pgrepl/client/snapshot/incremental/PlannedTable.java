package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.replication.Identifiers;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What planning a table found before its first chunk: its key and columns ({@link KeyedTable};
 * null when the stream names none of its rows by it, as a partitioned table published leaf by
 * leaf), every relation OID the stream may name its rows by, the workers' key ranges (null: one
 * worker, or ranges resumed from the progress state), the 32-bit xids of the transactions
 * prepared in this database then (see {@link StreamWindow#trackingStarts}), and the other
 * relations of its tree the stream names rows by, to snapshot as tables of their own (see
 * {@link PublishedTree}; none for a run resumed or planned again, whose tree was taken when it
 * was first asked for).
 */
record PlannedTable(KeyedTable table, int[] oids, List<KeyRange> ranges, long[] prepared, List<String> others) {

    static final String PREPARED = "SELECT transaction::text FROM pg_catalog.pg_prepared_xacts WHERE database = current_database()";

    /** Plans {@code t} on {@code c} (the first worker's reader connection). */
    static CompletionStage<PlannedTable> plan(PgConnection c, List<String> publications, TableRun t, int workersPerTable) {
        if (t.resumed != null) return planTable(c, publications, t, workersPerTable, List.of());
        String treeSql;
        try {
            treeSql = PublishedTree.sql(t.name, publications, c.serverMajor());
        } catch (IllegalArgumentException e) {
            return planTable(c, publications, t, workersPerTable, List.of()); // planning says what is wrong with the name
        }
        return c.query(treeSql).thenCompose(r -> {
            PublishedTree.Found tree = PublishedTree.found(r);
            List<String> others = tree.others().stream().map(Object::toString).toList();
            if (!tree.self() && !others.isEmpty()) {
                return CompletableFuture.completedFuture(new PlannedTable(null, new int[0], null, new long[0], others));
            }
            return planTable(c, publications, t, workersPerTable, others);
        });
    }

    private static CompletionStage<PlannedTable> planTable(PgConnection c, List<String> publications, TableRun t, int workersPerTable,
                                                          List<String> others) {
        return TablePlanner.plan(c, publications, t.name, t.condition,
                t.surrogateKey == null ? null : List.of(t.surrogateKey)).thenCompose(kt -> {
            String rel = Identifiers.quoteLiteral(Identifiers.quoteIdentifier(kt.schema()) + "." + Identifiers.quoteIdentifier(kt.table()));
            // A root published through itself: the stream names its partitions' rows by the root, but
            // track the partitions too. An inheritance child's rows the stream names by the child:
            // they are not this table's (the child is read, and tracked, as a table of its own).
            String oids = kt.partitionedRoot()
                    ? "WITH RECURSIVE t(oid) AS (SELECT " + rel + "::regclass::oid UNION ALL SELECT i.inhrelid"
                      + " FROM pg_catalog.pg_inherits i JOIN t ON i.inhparent = t.oid) SELECT oid FROM t"
                    : "SELECT " + rel + "::regclass::oid";
            return c.query(oids).thenCompose(q -> {
                int[] all = q.rows().stream().mapToInt(row -> (int) Long.parseLong(row.get(0))).toArray();
                // Asked after the table's oids, before its first chunk: a transaction prepared later
                // than this shows its PREPARE in the stream after tracking starts. The xid type's text
                // is the unsigned 32-bit value the stream carries.
                return c.query(PREPARED).thenCompose(px -> {
                    long[] prepared = px.rows().stream().mapToLong(row -> Long.parseLong(row.get(0))).toArray();
                    if (t.resumed != null || workersPerTable == 1) {
                        return CompletableFuture.completedFuture(new PlannedTable(kt, all, null, prepared, others));
                    }
                    return TablePlanner.ranges(c, kt, workersPerTable).thenApply(rs -> new PlannedTable(kt, all, rs, prepared, others));
                });
            });
        });
    }

    /**
     * Why ranges resumed from a saved state do not fit the table's key as planned now (its key
     * changed since they were saved: another primary key, replica identity index or surrogate key),
     * or null when they fit.
     *
     * @param name   the table, as the engine names it
     * @param ranges the resumed ranges
     */
    String misfit(String name, List<ProgressState.Range> ranges) {
        int columns = table.keyColumnIndexes().length;
        for (ProgressState.Range r : ranges) {
            for (List<String> key : java.util.Arrays.asList(r.after(), r.upTo(), r.lastKey())) {
                if (key != null && key.size() != columns) {
                    return "the saved progress of " + name + " holds keys of " + key.size() + " column(s), but the table"
                            + " is now read by " + table.keyColumns().stream().map(KeyedTable.Column::name).toList()
                            + " (its key changed since): stop its snapshot and request it again to read it from the start";
                }
            }
        }
        return null;
    }
}
