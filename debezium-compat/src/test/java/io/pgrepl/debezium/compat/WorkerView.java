package io.pgrepl.debezium.compat;

import io.debezium.config.Field;
import io.debezium.embedded.EmbeddedEngineConfig;
import io.debezium.embedded.async.AsyncEngineConfig;
import io.pgrepl.kafka.connect.settings.SettingsCheck;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connector configuration as a Kafka Connect worker would hand it to a connector. Debezium's
 * embedded engine passes its own settings (offset storage and flushing, record processing, retries)
 * in the connector's map, where a worker keeps them in its own configuration: they are removed here.
 * {@code slot.drop.on.stop}, which every Debezium test sets, is passed through when pgrepl honours it;
 * while pgrepl refuses it, it is removed and done here instead, after the connector stops.
 */
public final class WorkerView {
    private static final Logger log = LoggerFactory.getLogger(WorkerView.class);
    static final String DROP_SLOT_ON_STOP = "slot.drop.on.stop";
    /** Keys both a worker and the engine read from a connector's configuration: they stay. */
    private static final Set<String> CONNECT_KEYS = Set.of("name", "connector.class", "transforms", "predicates");
    private static final Set<String> ENGINE_KEYS = engineKeys();
    /** How long the stopped task's replication connection may take to leave the slot. */
    private static final Duration SLOT_RELEASE = Duration.ofSeconds(60);

    private final Map<String, String> connectorConfig;
    private final boolean dropSlotHere;

    private WorkerView(Map<String, String> connectorConfig, boolean dropSlotHere) {
        this.connectorConfig = connectorConfig;
        this.dropSlotHere = dropSlotHere;
    }

    public static WorkerView of(Map<String, String> props, ConfigDef def) {
        Map<String, String> out = new HashMap<>(props);
        Set<String> removed = new TreeSet<>();
        for (String key : props.keySet()) {
            if (ENGINE_KEYS.contains(key)) {
                out.remove(key);
                removed.add(key);
            }
        }
        boolean dropHere = Boolean.parseBoolean(out.getOrDefault(DROP_SLOT_ON_STOP, "false").trim())
                && !SettingsCheck.problems(Map.of(DROP_SLOT_ON_STOP, "true"), def).isEmpty();
        if (dropHere) {
            out.remove(DROP_SLOT_ON_STOP);
            removed.add(DROP_SLOT_ON_STOP);
        }
        if (!removed.isEmpty()) log.info("not passed to pgrepl's connector (a worker's, or emulated): {}", removed);
        return new WorkerView(Map.copyOf(out), dropHere);
    }

    public Map<String, String> connectorConfig() {
        return connectorConfig;
    }

    /** Drops the slot once no connection holds it, when {@code slot.drop.on.stop} is emulated. */
    public void afterStop() {
        if (!dropSlotHere) return;
        String slot = connectorConfig.getOrDefault("slot.name", "debezium");
        String url = "jdbc:postgresql://" + connectorConfig.getOrDefault("database.hostname", "localhost") + ":"
                + connectorConfig.getOrDefault("database.port", "5432") + "/"
                + connectorConfig.getOrDefault("database.dbname", "postgres");
        try (Connection c = DriverManager.getConnection(url, connectorConfig.get("database.user"),
                connectorConfig.get("database.password"))) {
            long deadline = System.nanoTime() + SLOT_RELEASE.toNanos();
            while (true) {
                Boolean active = slotActive(c, slot);
                if (active == null) return;
                if (!active) {
                    try (PreparedStatement st = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
                        st.setString(1, slot);
                        st.execute();
                        log.info("dropped slot {} (slot.drop.on.stop, emulated)", slot);
                        return;
                    } catch (SQLException e) {
                        // taken again between the check and the drop (55006: object in use): look again
                        if (!"55006".equals(e.getSQLState())) throw e;
                    }
                }
                if (System.nanoTime() > deadline) {
                    log.warn("slot {} still active {} after the connector stopped: not dropped", slot, SLOT_RELEASE);
                    return;
                }
                Thread.sleep(50);
            }
        } catch (SQLException e) {
            log.warn("dropping slot {} after stop failed: {}", slot, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@return whether a connection holds the slot, or null when there is no such slot} */
    private static Boolean slotActive(Connection c, String slot) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
            st.setString(1, slot);
            try (ResultSet rs = st.executeQuery()) {
                return rs.next() ? rs.getBoolean(1) : null;
            }
        }
    }

    private static Set<String> engineKeys() {
        Set<String> keys = new TreeSet<>();
        for (Class<?> holder : new Class<?>[] {EmbeddedEngineConfig.class, AsyncEngineConfig.class}) {
            for (java.lang.reflect.Field f : holder.getFields()) {
                if (f.getType() != Field.class) continue;
                try {
                    keys.add(((Field) f.get(null)).name());
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        keys.removeAll(CONNECT_KEYS);
        return Set.copyOf(keys);
    }
}
