package io.pgrepl.benchmarks.connect;

import io.pgrepl.testkit.PgServer;
import java.util.HashMap;
import java.util.Map;

/**
 * The two connectors' configurations, each as its own documentation tells a new user to write it:
 * defaults everywhere except what names the server, the slot, the publication, the table and the
 * topics. The publication always exists beforehand ({@code publication.autocreate.mode=disabled} for
 * both), so both decode exactly the same tables.
 */
final class Connectors {
    static final String PGREPL = "pgrepl";
    static final String DEBEZIUM = "debezium";

    private Connectors() {}

    /**
     * @param streamOnly true: no snapshot, stream from the (pre-created) slot's position; false: an
     *                   initial snapshot on a slot the connector creates, then streaming
     */
    static Map<String, String> config(String connector, PgServer pg, String prefix, String slot, String publication,
                                      String tableRegex, boolean streamOnly) {
        Map<String, String> c = new HashMap<>();
        c.put("tasks.max", "1");
        c.put("topic.prefix", prefix);
        c.put("slot.name", slot);
        c.put("publication.name", publication);
        c.put("publication.autocreate.mode", "disabled");
        c.put("table.include.list", tableRegex);
        c.put("topic.creation.default.replication.factor", "1");
        c.put("topic.creation.default.partitions", "1");
        switch (connector) {
            case PGREPL -> {
                c.put("connector.class", "io.pgrepl.kafka.connect.PgreplSourceConnector");
                c.put("database.url", "postgresql://" + pg.superuser().name() + "@127.0.0.1:" + pg.port() + "/postgres");
                c.put("database.password", pg.superuser().password());
                c.put("snapshot.mode", streamOnly ? "never" : "initial");
            }
            case DEBEZIUM -> {
                c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
                c.put("plugin.name", "pgoutput");
                c.put("database.hostname", "127.0.0.1");
                c.put("database.port", Integer.toString(pg.port()));
                c.put("database.user", pg.superuser().name());
                c.put("database.password", pg.superuser().password());
                c.put("database.dbname", "postgres");
                // no_data: stream from the slot without a snapshot (Debezium 2.x+ name of the old "never").
                c.put("snapshot.mode", streamOnly ? "no_data" : "initial");
            }
            default -> throw new IllegalArgumentException("unknown connector " + connector + " (pgrepl, debezium)");
        }
        return c;
    }
}
