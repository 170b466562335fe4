package io.pgrepl.client.internal;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The relations the stream's publications publish, named as the stream names their rows, for the
 * catalog queries of the snapshots. {@code pg_publication_tables} answers per publication, with
 * each one's publish_via_partition_root applied: one publication may list a partitioned root
 * (through the root) while another lists a partition of it (leaf by leaf, or by name). pgoutput
 * then names the partition's changes by its topmost ancestor that a publication lists through the
 * root, as {@code pg_get_publication_tables} drops such partitions when given several publications
 * (16+). Partitioned tables are listed only from 13 on (publish_via_partition_root), so before 13
 * every listed relation is named by itself; legacy inheritance children are listed by themselves
 * (a publication of a parent lists each child it took, unless made with {@code ONLY}) and keep
 * their own names.
 */
public final class PublishedRelations {
    private PublishedRelations() {}

    /**
     * A common table expression {@code pub}: the stream's publications' rows of
     * {@code pg_publication_tables} (one per publication and relation) with the relation's oid as
     * {@code relid}, computed once (each use of the view computes every publication's list).
     *
     * @param publications the publications, as SQL string literals joined by commas
     * @param major        the server's major version
     * @return {@code pub AS (...)}, to follow {@code WITH} or {@code WITH RECURSIVE ... ,}
     */
    public static String cte(String publications, int major) {
        return "pub AS " + (major >= 12 ? "MATERIALIZED " : "") + "(SELECT pc.oid AS relid, pt.*"
                + " FROM pg_catalog.pg_publication_tables pt JOIN pg_catalog.pg_namespace pn ON pn.nspname = pt.schemaname"
                + " JOIN pg_catalog.pg_class pc ON pc.relnamespace = pn.oid AND pc.relname = pt.tablename"
                + " WHERE pt.pubname IN (" + publications + "))";
    }

    /**
     * A condition on {@code pg_class c}: false for a partition one of whose ancestors {@code pub}
     * lists (the stream names its rows by that ancestor), true for any other relation.
     *
     * @param major the server's major version
     * @return the condition
     */
    public static String namedByItself(int major) {
        if (major < 13) return "true";
        return "NOT (c.relispartition AND EXISTS (SELECT 1 FROM pg_catalog.pg_partition_ancestors(c.oid) anc"
                + " JOIN pub ON pub.relid = anc.relid WHERE anc.relid <> c.oid))";
    }

    /**
     * An expression on {@code pg_class c}: {@code schema.name} of the topmost ancestor of
     * {@code c} that {@code pub} lists, the relation the stream names {@code c}'s rows by, or NULL.
     *
     * @param major the server's major version
     * @return the expression
     */
    public static String publishedAncestor(int major) {
        if (major < 13) return "NULL::text";
        // pg_partition_ancestors lists the relation itself, then its ancestors up to the root.
        return "(SELECT an.nspname || '.' || ac.relname FROM pg_catalog.pg_partition_ancestors(c.oid) WITH ORDINALITY anc(relid, n)"
                + " JOIN pub ON pub.relid = anc.relid JOIN pg_catalog.pg_class ac ON ac.oid = anc.relid"
                + " JOIN pg_catalog.pg_namespace an ON an.oid = ac.relnamespace WHERE anc.relid <> c.oid"
                + " ORDER BY anc.n DESC LIMIT 1)";
    }

    /**
     * The publications as SQL string literals joined by commas.
     *
     * @param publications the publication names
     * @return {@code 'a', 'b'}
     */
    public static String literals(List<String> publications) {
        return publications.stream().map(io.pgrepl.client.replication.Identifiers::quoteLiteral).collect(Collectors.joining(", "));
    }
}
