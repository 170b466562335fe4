package io.pgrepl.kafka.connect.snapshot;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.BoundedWait;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code maximum_key} of Debezium's IN_PROGRESS notification: a table's largest key when its
 * snapshot started, read once per table (an index scan backwards, one row) on a short ordinary
 * connection. The engine reads ranges open at the top, so it never knows this value itself. Key
 * texts joined by commas, as Debezium joins a composite key; {@code <null>} when it cannot be read
 * (an empty table, or the query failed: a notification is not worth failing the task for).
 */
public final class MaximumKeys {
    public static final String NONE = "<null>";
    private static final Logger log = LoggerFactory.getLogger(MaximumKeys.class);

    private final PgreplConnectorConfig config;
    private final NotifiedKeys keys;
    private final java.util.function.Function<RelationInfo, int[]> keyColumns;
    private final Map<Integer, String> byRelation = new HashMap<>();

    /** {@code keyColumns}: the columns the table's records are keyed by, the key a notification names. */
    public MaximumKeys(PgreplConnectorConfig config, NotifiedKeys keys, java.util.function.Function<RelationInfo, int[]> keyColumns) {
        this.config = config;
        this.keys = keys;
        this.keyColumns = keyColumns;
    }

    /** The table's maximum key, looked up the first time this relation asks. Builder thread. */
    public String of(RelationInfo rel) {
        return byRelation.computeIfAbsent(rel.oid(), o -> lookUp(rel));
    }

    private String lookUp(RelationInfo rel) {
        int[] keyed = keyColumns.apply(rel);
        if (keyed.length == 0) return NONE;
        StringBuilder cols = new StringBuilder();
        StringBuilder order = new StringBuilder();
        for (int k = 0; k < keyed.length; k++) {
            String c = Identifiers.quoteIdentifier(rel.column(keyed[k]).name());
            cols.append(k == 0 ? "" : ", ").append("k.").append(c).append("::text");
            // Qualified: a bare name in ORDER BY would mean the text output column, ordered as text.
            order.append(k == 0 ? "" : ", ").append("k.").append(c).append(" DESC");
        }
        String sql = "SELECT " + cols + " FROM " + Identifiers.quoteIdentifier(rel.namespace()) + "."
                + Identifiers.quoteIdentifier(rel.name()) + " AS k ORDER BY " + order + " LIMIT 1";
        ConnectionConfig ordinary = config.dataConnectionConfig();
        PgConnection c = null;
        try {
            c = BoundedWait.await(PgConnection.connect(ordinary), config, "connecting to read a table's maximum key");
            List<Row> rows = BoundedWait.await(c.query(sql), config, "reading the maximum key of " + rel.name()).rows();
            if (rows.isEmpty()) return NONE;
            StringBuilder key = new StringBuilder();
            Row r = rows.get(0);
            for (int i = 0; i < r.size(); i++) {
                String v = keys.text(rel, keyed[i], r.get(i));
                key.append(i == 0 ? "" : ",").append(v == null ? NONE : v);
            }
            return key.toString();
        } catch (RuntimeException e) {
            log.warn("incremental snapshot notifications: could not read the maximum key of {}.{}: {}", rel.namespace(), rel.name(),
                    e.getMessage());
            return NONE;
        } finally {
            if (c != null) c.close();
        }
    }
}
