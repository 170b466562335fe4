package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import java.util.HashMap;
import java.util.Map;

/**
 * The names of the database's types that pgoutput sends Type messages for (OIDs from 10000 on),
 * spelled as the stream's lines spell them from those messages: a domain by its base type's name,
 * {@code schema.name} outside pg_catalog. Snapshot reads get no Type messages, so their lines take
 * the names from here, read once before the snapshot starts: a row read and the same row streamed
 * name their columns' types alike.
 */
final class UserTypeNames {
    /** pgoutput's FirstGenbkiObjectId: below it no Type message is sent. */
    private static final int FIRST_SENT = 10_000;
    /** Each type with its base type through domains over domains (pgoutput's getBaseType). */
    private static final String SQL = "WITH RECURSIVE b(oid, base) AS (SELECT t.oid, t.oid FROM pg_catalog.pg_type t"
            + " WHERE t.oid >= " + FIRST_SENT + " UNION ALL SELECT b.oid, t.typbasetype FROM b JOIN pg_catalog.pg_type t"
            + " ON t.oid = b.base WHERE t.typtype = 'd')"
            + " SELECT b.oid, n.nspname, t.typname FROM b JOIN pg_catalog.pg_type t ON t.oid = b.base"
            + " JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE t.typtype <> 'd'";

    private UserTypeNames() {}

    /** Read on a short ordinary connection of its own. */
    static Map<Integer, String> load(ConnectionConfig config) throws Exception {
        Map<Integer, String> names = new HashMap<>();
        try (PgConnection c = StreamCommand.await(PgConnection.connect(config.toBuilder().replication(ReplicationMode.NONE).build()))) {
            for (Row r : StreamCommand.await(c.query(SQL)).rows()) {
                String ns = r.get(1);
                names.put(Integer.parseUnsignedInt(r.get(0)), ns.equals("pg_catalog") ? r.get(2) : ns + "." + r.get(2));
            }
        }
        return names;
    }
}
