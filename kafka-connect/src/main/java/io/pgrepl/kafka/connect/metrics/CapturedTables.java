package io.pgrepl.kafka.connect.metrics;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.ReplicationSetup;
import io.pgrepl.kafka.connect.TableFilter;
import java.util.ArrayList;
import java.util.List;

/** The tables the connector captures, named as Debezium's metrics name them: {@code schema.table}, unquoted. */
public final class CapturedTables {
    private CapturedTables() {}

    /**
     * {@return the publication's tables that table.include.list and the others let through} A signal
     * table the lists let through is captured too, as in Debezium (its rows are sent).
     */
    public static List<String> of(PgConnection c, PgreplConnectorConfig config) {
        TableFilter f = config.tableFilter();
        List<String> out = new ArrayList<>();
        for (Row r : ReplicationSetup.await(c.query("SELECT schemaname, tablename FROM pg_catalog.pg_publication_tables WHERE pubname = "
                + Identifiers.quoteLiteral(config.publicationName()) + " ORDER BY 1, 2"), config, "listing the publication's tables").rows()) {
            String schema = r.get(0);
            String name = r.get(1);
            if (f.test(schema, name)) out.add(schema + "." + name);
        }
        return out;
    }
}
