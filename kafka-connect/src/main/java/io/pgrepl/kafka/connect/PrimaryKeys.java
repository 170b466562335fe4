package io.pgrepl.kafka.connect;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
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
        ConnectionConfig plain = config.connectionConfig().toBuilder().replication(ReplicationMode.NONE).build();
        try (PgConnection c = ReplicationSetup.await(PgConnection.connect(plain), config, "connecting to read a primary key")) {
            QueryResult r = ReplicationSetup.await(c.query("SELECT a.attname FROM pg_catalog.pg_index i"
                    + " JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
                    + " WHERE i.indrelid = " + id + " AND i.indisprimary"), config, "reading the primary key of table " + id);
            Set<String> names = new HashSet<>();
            for (Row row : r.rows()) names.add(row.get(0));
            return names;
        }
    }
}
