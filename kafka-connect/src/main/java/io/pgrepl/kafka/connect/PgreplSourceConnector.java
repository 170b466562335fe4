package io.pgrepl.kafka.connect;

import io.pgrepl.client.PgConnection;
import io.pgrepl.kafka.connect.records.SourceInfo;
import io.pgrepl.kafka.connect.settings.DatabaseSettings;
import io.pgrepl.kafka.connect.settings.SettingsCheck;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * pgrepl as a Kafka Connect source: one connector owns one logical replication slot and runs one
 * task; scale out with more connectors. Records follow Debezium's PostgreSQL envelope.
 */
public final class PgreplSourceConnector extends SourceConnector {
    private static final Logger log = LoggerFactory.getLogger(PgreplSourceConnector.class);

    private Map<String, String> props;

    @Override
    public String version() {
        return SourceInfo.VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
        new PgreplConnectorConfig(props); // fail fast on a configuration validate() would refuse
    }

    @Override
    public Class<? extends Task> taskClass() {
        return PgreplSourceTask.class;
    }

    /** One slot, one task: tasks.max above 1 is allowed and warned about, not refused. */
    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        if (maxTasks > 1) {
            log.warn("tasks.max={} but a pgrepl connector reads one replication slot with one task; "
                    + "run one connector per slot to scale out", maxTasks);
        }
        return List.of(props);
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return PgreplConnectorConfig.CONFIG_DEF;
    }

    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        return ExactlyOnceSupport.SUPPORTED;
    }

    @Override
    public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
        return ConnectorTransactionBoundaries.SUPPORTED;
    }

    /**
     * The ConfigDef's checks, then, when those pass, the server's: it is reachable with these
     * credentials, the slot exists unless it may be created, the publication exists unless it may be
     * created, and failover needs 17+. Messages never show a password.
     */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = withRefusals(super.validate(connectorConfigs), connectorConfigs);
        Map<String, ConfigValue> byName = result.configValues().stream()
                .collect(Collectors.toMap(ConfigValue::name, Function.identity()));
        boolean clean = result.configValues().stream().allMatch(v -> v.errorMessages().isEmpty());
        if (!clean) return result;
        PgreplConnectorConfig config = new PgreplConnectorConfig(new HashMap<>(connectorConfigs));
        PgConnection conn;
        try {
            conn = ReplicationSetup.connect(config);
        } catch (RuntimeException e) {
            connectionKey(byName, config).addErrorMessage("cannot connect: " + ReplicationSetup.safeMessage(e, config));
            return result;
        }
        try (conn) {
            ReplicationSetup.SlotInfo slot = ReplicationSetup.slot(conn, config);
            ConfigValue slotValue = byName.get(PgreplConnectorConfig.SLOT_NAME);
            if (slot == null && !config.slotCreate()) {
                slotValue.addErrorMessage("replication slot \"" + config.slotName() + "\" does not exist and "
                        + PgreplConnectorConfig.SLOT_CREATE + " is false");
            } else if (slot != null && !("logical".equals(slot.slotType()) && "pgoutput".equals(slot.plugin()))) {
                slotValue.addErrorMessage("replication slot \"" + config.slotName() + "\" is " + slot.slotType() + "/"
                        + slot.plugin() + ", not a logical pgoutput slot");
            }
            if (config.slotFailover() && conn.serverMajor() < 17) {
                byName.get(PgreplConnectorConfig.SLOT_FAILOVER).addErrorMessage(
                        "slot.failover needs PostgreSQL 17 or later; the server is " + conn.serverMajor());
            }
            boolean pub = ReplicationSetup.publicationExists(conn, config);
            if (!pub && config.autocreateMode() == PgreplConnectorConfig.AutocreateMode.DISABLED) {
                byName.get(PgreplConnectorConfig.PUBLICATION_NAME).addErrorMessage("publication \""
                        + config.publicationName() + "\" does not exist and "
                        + PgreplConnectorConfig.PUBLICATION_AUTOCREATE_MODE + " is disabled");
            }
            if (config.autocreateMode() == PgreplConnectorConfig.AutocreateMode.FILTERED
                    && ReplicationSetup.filteredTables(conn, config).isEmpty()) {
                byName.get(PgreplConnectorConfig.TABLE_INCLUDE_LIST).addErrorMessage(
                        "publication.autocreate.mode=filtered but no table matches the include/exclude lists");
            }
        } catch (RuntimeException e) {
            connectionKey(byName, config).addErrorMessage("checking the server failed: " + ReplicationSetup.safeMessage(e, config));
        }
        return result;
    }

    /** Where a connection failure is shown: database.url, or database.hostname when the URL is not used. */
    private static ConfigValue connectionKey(Map<String, ConfigValue> byName, PgreplConnectorConfig config) {
        return byName.get(config.url() != null ? PgreplConnectorConfig.DATABASE_URL : DatabaseSettings.HOSTNAME);
    }

    /**
     * The ConfigDef's answer plus the settings check's refusals, each on its key: a key the
     * ConfigDef does not define gets a value of its own (shown by Connect's REST API and UI like
     * any other), without its value, which may be a secret under a mistyped name.
     */
    private static Config withRefusals(Config defined, Map<String, String> props) {
        Map<String, List<String>> problems = SettingsCheck.problems(props, PgreplConnectorConfig.CONFIG_DEF);
        if (problems.isEmpty()) return defined;
        List<ConfigValue> values = new ArrayList<>(defined.configValues());
        Map<String, ConfigValue> byName = values.stream().collect(Collectors.toMap(ConfigValue::name, Function.identity()));
        problems.forEach((key, messages) -> {
            ConfigValue v = byName.get(key);
            if (v == null) {
                v = new ConfigValue(key);
                values.add(v);
            }
            messages.forEach(v::addErrorMessage);
        });
        return new Config(values);
    }
}
