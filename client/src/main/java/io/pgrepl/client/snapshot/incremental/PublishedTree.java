package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.client.internal.PublishedRelations;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.replication.QualifiedName;
import java.util.ArrayList;
import java.util.List;

/**
 * Which relations an incremental snapshot of a named table reads: every relation of the table's
 * tree (itself and its descendants, by declarative partitioning or legacy inheritance) that the
 * stream names rows by, each read on its own and reported under its own name, as the stream
 * reports it. A partitioned root published through the root is read whole, under its name (its
 * partitions are not listed); one published leaf by leaf is not listed, its leaves are; an
 * inheritance parent is read with {@code ONLY}, and each child the publications list (those a
 * publication of the parent took, unless it was made with {@code ONLY}, and any listed by
 * themselves) is read as a table of its own.
 */
final class PublishedTree {
    private PublishedTree() {}

    /** The tree's relations the stream names rows by: schema, name, and whether it is the named table. */
    static String sql(String qualifiedTable, List<String> publications, int major) {
        String rel = Identifiers.quoteLiteral(QualifiedName.parse(qualifiedTable).quoted());
        return "WITH RECURSIVE tree(relid) AS (SELECT pg_catalog.to_regclass(" + rel + ")::oid"
                + " UNION ALL SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN tree ON i.inhparent = tree.relid), "
                + PublishedRelations.cte(PublishedRelations.literals(publications), major)
                + " SELECT DISTINCT n.nspname, c.relname, c.oid = pg_catalog.to_regclass(" + rel + ")::oid"
                + " FROM tree JOIN pg_catalog.pg_class c ON c.oid = tree.relid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE c.oid IN (SELECT relid FROM pub) AND " + PublishedRelations.namedByItself(major)
                + " ORDER BY 3 DESC, 1, 2";
    }

    /** What {@link #sql} found: whether the named table is read itself, and the other relations to read. */
    record Found(boolean self, List<QualifiedName> others) {}

    static Found found(QueryResult r) {
        boolean self = false;
        List<QualifiedName> others = new ArrayList<>();
        for (Row row : r.rows()) {
            if ("t".equals(row.get(2))) self = true;
            else others.add(new QualifiedName(row.get(0), row.get(1)));
        }
        return new Found(self, others);
    }
}
