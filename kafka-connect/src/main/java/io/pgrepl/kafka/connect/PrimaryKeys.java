package io.pgrepl.kafka.connect;

import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import java.util.HashSet;
import java.util.Set;

/**
 * The primary key columns of a REPLICA IDENTITY FULL table. pgoutput flags every column of such a
 * table as part of its identity, so a key built from the flags would be the whole row: NULLs in a
 * key struct and every update a key change. Debezium's key is the primary key, read here from
 * {@code pg_index} on a short ordinary connection of its own (the replication connection is busy
 * streaming) when such a table's schema is built: at first sight and when its columns change.
 */
final class PrimaryKeys {
    private final PgreplConnectorConfig config;

    PrimaryKeys(PgreplConnectorConfig config) {
        this.config = config;
    }

    /** The names of table {@code relOid}'s primary key columns; empty when it has none. */
    Set<String> of(int relOid) {
        String id = Integer.toUnsignedString(relOid);
        QueryResult r = ReplicationSetup.queryOnce(config, "SELECT a.attname FROM pg_catalog.pg_index i"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
                + " WHERE i.indrelid = " + id + " AND i.indisprimary", "reading the primary key of table " + id);
        Set<String> names = new HashSet<>();
        for (Row row : r.rows()) names.add(row.get(0));
        return names;
    }
}
