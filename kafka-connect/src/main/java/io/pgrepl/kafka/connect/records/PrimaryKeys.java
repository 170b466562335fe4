package io.pgrepl.kafka.connect.records;

import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.ReplicationSetup;
import java.util.HashSet;
import java.util.Set;

/**
 * The primary key columns of a REPLICA IDENTITY FULL table. pgoutput flags every column of such a
 * table as part of its identity, so a key built from the flags would be the whole row: NULLs in a
 * key struct and every update a key change. Debezium's key is the primary key, read here from
 * {@code pg_index} on a short ordinary connection of its own (the replication connection is busy
 * streaming) when such a table's schema is built: at first sight and when its columns change.
 *
 * <p>The catalog is read now, while the change may be old (a backlog): a primary key created by a
 * later transaction did not exist for the change, and its columns may be NULL in the change's rows
 * (a required field then fails the task). So a key whose {@code pg_index} row was written by a
 * later transaction than the change's is not used: the change gets no key. One written by the
 * change's own transaction is (CREATE TABLE and its first rows in one transaction), though it may
 * have come after the Relation in it: no catalog row tells which.
 */
public final class PrimaryKeys {
    /** Looks up a table's primary key as it stood for a transaction. */
    public interface Lookup {
        /**
         * @param relOid the table
         * @param xid    the transaction of the change (32-bit, unsigned), or 0 when unknown
         * @return the key's column names; empty when it has none, or none known to predate the transaction
         */
        Set<String> of(int relOid, long xid);
    }

    /** xids below this are special (bootstrap, frozen): older than any transaction. */
    private static final long FIRST_NORMAL_XID = 3;

    private final PgreplConnectorConfig config;

    public PrimaryKeys(PgreplConnectorConfig config) {
        this.config = config;
    }

    /** The names of table {@code relOid}'s primary key columns; empty when it has none, or it is newer than transaction {@code xid}. */
    public Set<String> of(int relOid, long xid) {
        String id = Integer.toUnsignedString(relOid);
        QueryResult r = ReplicationSetup.queryOnce(config, "SELECT a.attname, i.xmin::text FROM pg_catalog.pg_index i"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
                + " WHERE i.indrelid = " + id + " AND i.indisprimary", "reading the primary key of table " + id);
        Set<String> names = new HashSet<>();
        for (Row row : r.rows()) {
            if (xid != 0 && later(Long.parseLong(row.get(1)), xid)) return Set.of();
            names.add(row.get(0));
        }
        return names;
    }

    /** Whether xid {@code a} is newer than {@code b}, modulo 2^32 as PostgreSQL compares them (TransactionIdFollows). */
    public static boolean later(long a, long b) {
        if (a < FIRST_NORMAL_XID) return false;
        return (int) (a - b) > 0;
    }
}
