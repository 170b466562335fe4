package io.pgrepl.flink.table;

import static io.pgrepl.flink.table.PgreplTableOptions.*;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.flink.PgreplSource;
import io.pgrepl.flink.PgreplSourceBuilder;
import io.pgrepl.flink.StartupMode;
import io.pgrepl.flink.TableName;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * {@code 'connector' = 'pgrepl'}: one PostgreSQL table as a changelog source. Options are checked
 * when the table is planned: unknown ones (including Flink CDC's {@code debezium.*} pass-through)
 * and values this connector does not honour fail with a {@link ValidationException}.
 */
public final class PgreplTableFactory implements DynamicTableSourceFactory {
    /** The connector's identifier. */
    public static final String IDENTIFIER = "pgrepl";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(TABLE_NAME, SLOT_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(HOSTNAME, PORT, USERNAME, PASSWORD, DATABASE_NAME, URL, SSL_MODE, SSL_ROOT_CERT, SCHEMA_NAME,
                DECODING_PLUGIN_NAME, PUBLICATION_NAME, PUBLICATION_AUTOCREATE, STARTUP_MODE, INCREMENTAL_SNAPSHOT, CHUNK_SIZE,
                FETCH_SIZE, CONNECT_TIMEOUT, HEARTBEAT, CHANGELOG_MODE, LSN_COMMIT_DELAY, STREAMING, MEMORY_BUDGET,
                SPILL_DIRECTORY, SLOT_FAILOVER, TRUNCATE_HANDLING, GUARD_WARN, GUARD_FAIL, SLOT_METRICS_INTERVAL,
                STANDBY_PRIMARY_URL, SIGNAL_DATA_COLLECTION, SLOT_LOST_HANDLING);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        for (String key : context.getCatalogTable().getOptions().keySet()) {
            if (key.startsWith("debezium.")) {
                throw new ValidationException("option '" + key + "': the pgrepl connector embeds no Debezium, so debezium.*"
                        + " options have no effect and are refused; see docs/flink.md for the options it has");
            }
        }
        if (context.getConfiguration().get(CheckpointingOptions.ENABLE_UNALIGNED)) {
            throw new ValidationException("the pgrepl connector needs aligned checkpoints (its stream starts once a checkpoint"
                    + " completed after the snapshot, which orders every snapshot row before the stream's changes only when"
                    + " barriers are aligned): set execution.checkpointing.unaligned.enabled to false");
        }
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig o = helper.getOptions();
        if (!"pgoutput".equals(o.get(DECODING_PLUGIN_NAME))) {
            throw new ValidationException("decoding.plugin.name '" + o.get(DECODING_PLUGIN_NAME) + "': the pgrepl connector reads"
                    + " pgoutput only (built into PostgreSQL 10+)");
        }
        if (!o.get(INCREMENTAL_SNAPSHOT)) {
            throw new ValidationException("scan.incremental.snapshot.enabled 'false': the pgrepl connector always reads the snapshot"
                    + " in parallel splits (there is no single-reader snapshot to fall back to)");
        }
        String mode = o.get(CHANGELOG_MODE).toLowerCase(Locale.ROOT);
        if (!mode.equals("all") && !mode.equals("upsert")) {
            throw new ValidationException("changelog-mode '" + o.get(CHANGELOG_MODE) + "' is not one of all, upsert");
        }
        boolean upsert = mode.equals("upsert");
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        if (upsert && schema.getPrimaryKey().isEmpty()) {
            throw new ValidationException("changelog-mode 'upsert' needs a PRIMARY KEY (...) NOT ENFORCED on the Flink table");
        }
        String lost = o.get(SLOT_LOST_HANDLING).toLowerCase(Locale.ROOT);
        if (!lost.equals("fail") && !lost.equals("snapshot")) {
            throw new ValidationException("slot.lost.handling '" + o.get(SLOT_LOST_HANDLING) + "' is not one of fail, snapshot");
        }
        boolean rereads = lost.equals("snapshot") || o.getOptional(SIGNAL_DATA_COLLECTION).isPresent();
        if (rereads && !upsert) {
            throw new ValidationException((lost.equals("snapshot") ? "slot.lost.handling 'snapshot'" : "signal.data.collection")
                    + " reads the table again while the job runs, and a row read again cannot be retracted in changelog-mode 'all'"
                    + " (the changelog may hold an older version of it): set changelog-mode 'upsert'");
        }
        List<Column> physical = schema.getColumns().stream().filter(Column::isPhysical).toList();
        String[] names = physical.stream().map(Column::getName).toArray(String[]::new);
        LogicalType[] types = physical.stream().map(c -> c.getDataType().getLogicalType()).toArray(LogicalType[]::new);
        for (int i = 0; i < names.length; i++) ValueConverter.check(names[i], types[i]);

        PgreplSourceBuilder b = PgreplSource.builder()
                .slotName(o.get(SLOT_NAME))
                .tables(List.of(new TableName(o.get(SCHEMA_NAME), o.get(TABLE_NAME))))
                .startupMode(startupMode(o.get(STARTUP_MODE)))
                .chunkSize(o.get(CHUNK_SIZE))
                .connectTimeout(o.get(CONNECT_TIMEOUT))
                .heartbeat(o.get(HEARTBEAT))
                .lsnCommitDelay(o.get(LSN_COMMIT_DELAY))
                .streaming(streaming(o.get(STREAMING)))
                .memoryBudgetBytes(o.get(MEMORY_BUDGET).getBytes())
                .slotFailover(o.get(SLOT_FAILOVER))
                .failOnTruncate(truncate(o.get(TRUNCATE_HANDLING)))
                .requireFullReplicaIdentity(!upsert)
                .slotMetricsInterval(o.get(SLOT_METRICS_INTERVAL))
                .publicationAutocreate(o.get(PUBLICATION_AUTOCREATE))
                .slotGuard(o.getOptional(GUARD_WARN).map(MemorySize::getBytes).orElse(0L),
                        o.getOptional(GUARD_FAIL).map(MemorySize::getBytes).orElse(0L));
        o.getOptional(FETCH_SIZE).ifPresent(b::fetchSize);
        o.getOptional(PUBLICATION_NAME).ifPresent(b::publication);
        o.getOptional(PASSWORD).ifPresent(b::password);
        o.getOptional(SPILL_DIRECTORY).ifPresent(b::spillDirectory);
        o.getOptional(STANDBY_PRIMARY_URL).ifPresent(b::standbyOf);
        o.getOptional(SIGNAL_DATA_COLLECTION).ifPresent(b::signalTable);
        b.snapshotOnLostSlot(lost.equals("snapshot"));
        String database = connection(o, b);
        try {
            b.settings(); // every remaining check, now, not on a task manager
        } catch (IllegalArgumentException e) {
            throw new ValidationException("pgrepl table " + o.get(SCHEMA_NAME) + "." + o.get(TABLE_NAME) + ": " + e.getMessage(), e);
        }
        List<String> key = schema.getPrimaryKey().map(k -> k.getColumns()).orElse(List.of());
        return new PgreplTableSource(b, names, types, upsert, key, database, context.getPhysicalRowDataType());
    }

    /** Sets where to connect; {@return the database name} */
    private static String connection(ReadableConfig o, PgreplSourceBuilder b) {
        boolean url = o.getOptional(URL).isPresent();
        boolean host = o.getOptional(HOSTNAME).isPresent();
        if (url == host) throw new ValidationException("give either 'url' or 'hostname' (with 'username' and 'database-name'), exactly one");
        if (url) {
            for (ConfigOption<?> c : List.of(USERNAME, DATABASE_NAME, SSL_MODE, SSL_ROOT_CERT)) {
                if (o.getOptional(c).isPresent()) {
                    throw new ValidationException("'" + c.key() + "' goes into 'url' when 'url' is given (libpq parameters)");
                }
            }
            try {
                b.url(o.get(URL));
                return ConnectionConfig.parse(o.get(URL)).database();
            } catch (IllegalArgumentException e) {
                throw new ValidationException("url: " + e.getMessage(), e);
            }
        }
        StringBuilder conninfo = new StringBuilder();
        conninfo.append("host=").append(quote(o.get(HOSTNAME))).append(" port=").append(o.get(PORT));
        String user = o.getOptional(USERNAME).orElseThrow(() -> new ValidationException("'username' is required with 'hostname'"));
        String db = o.getOptional(DATABASE_NAME).orElseThrow(() -> new ValidationException("'database-name' is required with 'hostname'"));
        conninfo.append(" user=").append(quote(user)).append(" dbname=").append(quote(db));
        o.getOptional(SSL_MODE).ifPresent(v -> conninfo.append(" sslmode=").append(quote(v)));
        o.getOptional(SSL_ROOT_CERT).ifPresent(v -> conninfo.append(" sslrootcert=").append(quote(v)));
        try {
            ConnectionConfig.parse(conninfo.toString());
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
        b.url(conninfo.toString());
        return db;
    }

    private static String quote(String v) {
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    private static StartupMode startupMode(String v) {
        try {
            return StartupMode.of(v);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage());
        }
    }

    private static StreamingMode streaming(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "on" -> StreamingMode.ON;
            case "off" -> StreamingMode.OFF;
            case "parallel" -> StreamingMode.PARALLEL;
            default -> throw new ValidationException("streaming '" + v + "' is not one of on, parallel, off");
        };
    }

    private static boolean truncate(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "fail" -> true;
            case "skip" -> false;
            default -> throw new ValidationException("scan.truncate.handling '" + v + "' is not one of fail, skip");
        };
    }
}
