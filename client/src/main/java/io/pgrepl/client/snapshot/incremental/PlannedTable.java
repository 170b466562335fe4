package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.replication.Identifiers;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What planning a table found before its first chunk: its key and columns ({@link KeyedTable}),
 * every relation OID the stream may name its changes by, the workers' key ranges (null: one
 * worker, or ranges resumed from the progress state), and the 32-bit xids of the transactions
 * prepared in this database then (see {@link StreamWindow#trackingStarts}).
 */
record PlannedTable(KeyedTable table, int[] oids, List<KeyRange> ranges, long[] prepared) {

    static final String PREPARED = "SELECT transaction::text FROM pg_catalog.pg_prepared_xacts WHERE database = current_database()";

    /** Plans {@code t} on {@code c} (the first worker's reader connection). */
    static CompletionStage<PlannedTable> plan(PgConnection c, List<String> publications, TableRun t, int workersPerTable) {
        return TablePlanner.plan(c, publications, t.name, t.condition,
                t.surrogateKey == null ? null : List.of(t.surrogateKey)).thenCompose(kt -> {
            String rel = Identifiers.quoteLiteral(Identifiers.quoteIdentifier(kt.schema()) + "." + Identifiers.quoteIdentifier(kt.table()));
            // The stream names a partition's changes by the leaf unless published via the root: track them all.
            String oids = "WITH RECURSIVE t(oid) AS (SELECT " + rel + "::regclass::oid UNION ALL SELECT i.inhrelid"
                    + " FROM pg_catalog.pg_inherits i JOIN t ON i.inhparent = t.oid) SELECT oid FROM t";
            return c.query(oids).thenCompose(q -> {
                int[] all = q.rows().stream().mapToInt(row -> (int) Long.parseLong(row.get(0))).toArray();
                // Asked after the table's oids, before its first chunk: a transaction prepared later
                // than this shows its PREPARE in the stream after tracking starts. The xid type's text
                // is the unsigned 32-bit value the stream carries.
                return c.query(PREPARED).thenCompose(px -> {
                    long[] prepared = px.rows().stream().mapToLong(row -> Long.parseLong(row.get(0))).toArray();
                    if (t.resumed != null || workersPerTable == 1) {
                        return CompletableFuture.completedFuture(new PlannedTable(kt, all, null, prepared));
                    }
                    return TablePlanner.ranges(c, kt, workersPerTable).thenApply(rs -> new PlannedTable(kt, all, rs, prepared));
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
