package io.pgrepl.client.snapshot;

import io.pgrepl.codec.pgoutput.RelationInfo;

/**
 * One published table as the snapshot copies it: its relation (published columns only, with the
 * replica identity key flags pgoutput would send), the publication's row filter (15+, null for
 * none), whether it is a partitioned root copied through its partitions, and its size in pages.
 */
public record SnapshotTable(RelationInfo relation, String rowFilter, boolean partitionedRoot, long pages,
                            long rowsEstimate, boolean hasReplicaIdentity) {
    /** {@return {@code schema.table}, unquoted} */
    public String qualifiedName() {
        return relation.schema() + "." + relation.name();
    }
}
