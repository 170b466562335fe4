package io.pgrepl.kafka.connect;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.replication.PublicationSpec;
import io.pgrepl.client.replication.SlotCreated;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.AutocreateMode;
import io.pgrepl.kafka.connect.snapshot.IncrementalSettings;
import io.pgrepl.kafka.connect.snapshot.IncrementalSetup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * What must exist before streaming, and the checks {@code validate()} runs: the slot (created if
 * allowed) and the publication (created or altered per publication.autocreate.mode). Called from
 * the task's and the connector's own threads, never an event loop; every wait is bounded.
 */
public final class ReplicationSetup {
    public static final long TIMEOUT_SECONDS = BoundedWait.TIMEOUT_SECONDS;
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ReplicationSetup.class);

    /** An existing slot's plugin, type and database, whether a connection holds it, and its positions (0 where null). */
    public record SlotInfo(String plugin, String slotType, String database, boolean active, long confirmedFlush, long restartLsn) {
        StartPlan.Slot positions() {
            return new StartPlan.Slot(active, confirmedFlush, restartLsn);
        }
    }

    private ReplicationSetup() {}

    public static PgConnection connect(PgreplConnectorConfig config) {
        return await(PgConnection.connect(config.connectionConfig()), config, "connecting to the database");
    }

    /**
     * One catalog query on a short ordinary connection of its own, for lookups while the replication
     * connection is busy streaming.
     */
    public static QueryResult queryOnce(PgreplConnectorConfig config, String sql, String what) {
        ConnectionConfig plain = config.connectionConfig().toBuilder().replication(ReplicationMode.NONE).build();
        try (PgConnection c = await(PgConnection.connect(plain), config, "connecting for " + what)) {
            return await(c.query(sql), config, what);
        }
    }

    /**
     * slot.drop.on.stop: drops the slot once the stopped task's walsender has let it go (a slot in
     * use cannot be dropped), waiting up to {@link #TIMEOUT_SECONDS}; a slot still active then (another
     * consumer, or the next task already streaming) is left, with a warning.
     */
    static void dropSlotOnStop(PgreplConnectorConfig config) {
        String name = "'" + config.slotName().replace("'", "''") + "'";
        String what = "dropping slot " + config.slotName();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        try {
            while (System.nanoTime() < end) {
                List<io.pgrepl.client.Row> rows = queryOnce(config, "SELECT active::text FROM pg_catalog.pg_replication_slots"
                        + " WHERE slot_name = " + name, what).rows();
                if (rows.isEmpty()) {
                    log.info("slot.drop.on.stop: replication slot {} dropped", config.slotName());
                    return;
                }
                if ("false".equals(rows.get(0).get(0))) {
                    try {
                        queryOnce(config, "SELECT pg_catalog.pg_drop_replication_slot(" + name + ")", what);
                        continue;
                    } catch (RuntimeException e) {
                        // taken again in between: looked at once more
                    }
                }
                Thread.sleep(100); // the walsender exits once its connection is closed
            }
            log.warn("slot.drop.on.stop: replication slot {} is still in use; it is kept", config.slotName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.warn("slot.drop.on.stop: replication slot {} could not be dropped: {}", config.slotName(), safeMessage(e, config));
        }
    }

    public static <T> T await(CompletionStage<T> stage, PgreplConnectorConfig config, String what) {
        return BoundedWait.await(stage, config, what);
    }

    /** See {@link BoundedWait#await(CompletionStage, PgreplConnectorConfig, String, Duration)}. */
    public static <T> T await(CompletionStage<T> stage, PgreplConnectorConfig config, String what, Duration timeout) {
        return BoundedWait.await(stage, config, what, timeout);
    }

    /** A failure's message with any password in the configuration masked. */
    public static String safeMessage(Throwable t, PgreplConnectorConfig config) {
        return BoundedWait.safeMessage(t, config);
    }

    public static SlotInfo slot(PgConnection conn, PgreplConnectorConfig config) {
        QueryResult r = await(conn.query("SELECT plugin, slot_type, database, active::text, confirmed_flush_lsn::text,"
                + " restart_lsn::text FROM pg_catalog.pg_replication_slots WHERE slot_name = "
                + Identifiers.quoteLiteral(config.slotName())), config, "looking up the slot");
        if (r.rows().isEmpty()) return null;
        Row row = r.rows().get(0);
        return new SlotInfo(row.get(0), row.get(1), row.get(2), "true".equals(row.get(3)), lsn(row.get(4)), lsn(row.get(5)));
    }

    private static long lsn(String text) {
        return text == null ? 0 : Lsn.parse(text);
    }

    /** An existing slot must be a logical pgoutput slot to stream from or copy beside. */
    public static void requireLogicalPgoutput(SlotInfo s, PgreplConnectorConfig config) {
        if (!"logical".equals(s.slotType()) || !"pgoutput".equals(s.plugin())) {
            throw new ConnectException("replication slot \"" + config.slotName() + "\" exists but is "
                    + s.slotType() + "/" + s.plugin() + ", not a logical pgoutput slot");
        }
    }

    public static boolean publicationExists(PgConnection conn, PgreplConnectorConfig config) {
        return await(conn.listPublications(), config, "listing publications").contains(config.publicationName());
    }

    public static String currentDatabase(PgConnection conn, PgreplConnectorConfig config) {
        return await(conn.query("SELECT current_database()"), config, "reading the database name").singleRow().get(0);
    }

    /** Creates the slot when missing (slot.create); fails clearly when it is missing and may not be created. */
    public static SlotCreated ensureSlot(PgConnection conn, PgreplConnectorConfig config, SnapshotMode snapshot) {
        SlotInfo s = slot(conn, config);
        if (s != null) {
            requireLogicalPgoutput(s, config);
            return null;
        }
        if (!config.slotCreate()) {
            throw new ConnectException("replication slot \"" + config.slotName() + "\" does not exist and "
                    + PgreplConnectorConfig.SLOT_CREATE + " is false");
        }
        CreateSlotOptions o = CreateSlotOptions.logical(config.slotName(), "pgoutput").withSnapshot(snapshot);
        if (config.slotFailover()) o = o.withFailover(true);
        return await(StandbySource.createSlot(conn, o, config), config, "creating slot \"" + config.slotName() + "\"");
    }

    /** Makes the publication exist (and, in filtered mode, cover the filtered tables). */
    public static void ensurePublication(PgConnection conn, PgreplConnectorConfig config) {
        boolean exists = publicationExists(conn, config);
        AutocreateMode mode = config.autocreateMode();
        switch (mode) {
            case DISABLED -> {
                if (!exists) {
                    throw new ConnectException("publication \"" + config.publicationName() + "\" does not exist and "
                            + PgreplConnectorConfig.PUBLICATION_AUTOCREATE_MODE + " is disabled");
                }
            }
            case NO_TABLES -> {
                if (!exists) {
                    await(conn.query("CREATE PUBLICATION " + Identifiers.quoteIdentifier(config.publicationName())), config,
                            "creating publication \"" + config.publicationName() + "\"");
                }
            }
            case ALL_TABLES -> {
                if (!exists) {
                    await(conn.createPublication(PublicationSpec.forAllTables(config.publicationName())), config,
                            "creating publication \"" + config.publicationName() + "\"");
                }
            }
            case FILTERED -> {
                List<String> tables = filteredTables(conn, config);
                String signal = IncrementalSettings.signalTable(config);
                if (signal != null && !tables.isEmpty()) {
                    String[] st = IncrementalSetup.split(signal);
                    String q = Identifiers.quoteIdentifier(st[0]) + "." + Identifiers.quoteIdentifier(st[1]);
                    if (!tables.contains(q)) tables.add(q); // its signals reach the task only through the publication
                }
                if (tables.isEmpty()) {
                    throw new ConnectException("publication.autocreate.mode=filtered: no table matches "
                            + PgreplConnectorConfig.TABLE_INCLUDE_LIST + "/" + PgreplConnectorConfig.TABLE_EXCLUDE_LIST);
                }
                PublicationSpec spec = PublicationSpec.forTables(config.publicationName(), tables.toArray(String[]::new));
                await(exists ? conn.alterPublication(spec) : conn.createPublication(spec), config,
                        (exists ? "altering" : "creating") + " publication \"" + config.publicationName() + "\"");
            }
        }
    }

    /** Ordinary and partitioned tables outside the system schemas that the filter lets through, schema-qualified. */
    public static List<String> filteredTables(PgConnection conn, PgreplConnectorConfig config) {
        QueryResult r = await(conn.query("SELECT n.nspname, c.relname FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
                + " AND n.nspname NOT LIKE 'pg_toast%' ORDER BY 1, 2"), config, "listing tables");
        TableFilter f = config.tableFilter();
        List<String> out = new ArrayList<>();
        for (Row row : r.rows()) {
            if (f.test(row.get(0), row.get(1))) {
                out.add(Identifiers.quoteIdentifier(row.get(0)) + "." + Identifiers.quoteIdentifier(row.get(1)));
            }
        }
        return out;
    }
}
