package io.pgrepl.kafka.connect;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SlotCreated;
import io.pgrepl.client.replication.StandbySlots;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task whose database.url is a hot standby (16+): the slot is created there, with the primary
 * asked for a running-transactions record (database.primary.url) only when
 * database.primary.log.standby.snapshot allows it, since that writes WAL on the primary.
 */
final class StandbySource {
    private static final Logger log = LoggerFactory.getLogger(StandbySource.class);

    private StandbySource() {}

    /** CREATE_REPLICATION_SLOT on {@code conn}, through {@link StandbySlots} when the primary may be asked. */
    static CompletionStage<SlotCreated> createSlot(PgConnection conn, CreateSlotOptions o, PgreplConnectorConfig config) {
        ConnectionConfig primary = primary(config);
        if (primary != null) return StandbySlots.create(conn, o, primary);
        return conn.query("SELECT pg_catalog.pg_is_in_recovery()").thenCompose(r -> {
            if ("t".equals(r.singleRow().get(0))) {
                log.warn("database.url is a standby: slot {} is created once it replays the primary's next running-transactions"
                        + " record (an idle primary may not log one); set {} and {}=true to ask the primary for it",
                        o.slotName(), PgreplConnectorConfig.DATABASE_PRIMARY_URL, PgreplConnectorConfig.DATABASE_PRIMARY_LOG_STANDBY_SNAPSHOT);
            }
            return conn.createReplicationSlot(o);
        });
    }

    /**
     * The primary's connection settings (an ordinary session; database.password when its URL names
     * no password; the OAuth token source as for database.url), or null when the primary may not be asked.
     */
    static ConnectionConfig primary(PgreplConnectorConfig config) {
        String url = config.primaryUrl();
        boolean allowed = config.primaryLogStandbySnapshot();
        if (url == null && !allowed) return null;
        if (url == null) {
            throw new ConfigException(PgreplConnectorConfig.DATABASE_PRIMARY_LOG_STANDBY_SNAPSHOT + "=true needs "
                    + PgreplConnectorConfig.DATABASE_PRIMARY_URL);
        }
        if (!allowed) {
            throw new ConfigException(PgreplConnectorConfig.DATABASE_PRIMARY_URL + " is only used to log a standby snapshot: set "
                    + PgreplConnectorConfig.DATABASE_PRIMARY_LOG_STANDBY_SNAPSHOT + "=true to allow it, or remove it");
        }
        ConnectionConfig.Builder b = ConnectionConfig.parse(url).toBuilder().replication(ReplicationMode.NONE);
        ConnectionConfig own = config.connectionConfig();
        if (b.build().password() == null && own.password() != null) b.password(own.password());
        if (b.build().applicationName() == null) b.applicationName("pgrepl-kafka-connect");
        return b.oauthTokenSource(own.oauthTokenSource()).build();
    }
}
