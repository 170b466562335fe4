package io.pgrepl.kafka.connect.settings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The keys of a connector configuration that pgrepl refuses, each with why and what to do instead:
 * Debezium settings it does not honour (or not with that value), and unknown keys that look like
 * the connector's own (a typo, or another connector's setting), with the nearest known key. Keys
 * of Kafka Connect itself, and anything that does not look like a connector setting, pass.
 */
public final class SettingsCheck {
    private SettingsCheck() {}

    /** Keys under these prefixes are pgrepl's own, read by prefix (the OAuth provider's settings). */
    private static final List<String> OWN_PREFIXES = List.of("database.oauth.token.provider.");

    /** {@return the refused keys of {@code props} and why, in the order given; empty when none} */
    public static Map<String, List<String>> problems(Map<String, ?> props, ConfigDef def) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        Set<String> own = def.names();
        for (Map.Entry<String, ?> e : props.entrySet()) {
            String key = e.getKey();
            String value = e.getValue() == null ? null : e.getValue().toString();
            Optional<DebeziumSetting> d = DebeziumSettings.find(key);
            String problem = null;
            if (d.isPresent()) {
                problem = d.get().refusal(key, value);
            } else if (DriverSettings.property(key) != null) {
                problem = DriverSettings.refusal(key, value);
            } else if (copiedToDriver(key, def)) {
                // Debezium hands every database.* key it does not read to pgJDBC, which ignores the names it does not
                // know: a connector setting repeated under database. (Debezium's own tests write database.topic.prefix)
                // is such a name, with no effect in either connector, so it is not taken for a typo.
            } else if (!own.contains(key) && !ConnectKeys.owns(key) && OWN_PREFIXES.stream().noneMatch(key::startsWith)) {
                String near = NearestKey.suggestion(key, known(def));
                if (near != null) {
                    problem = key + " is not a setting of pgrepl's connector, of Debezium's PostgreSQL connector or of Kafka"
                            + " Connect" + (near.isEmpty() ? "" : "; did you mean " + near + "?");
                }
            }
            if (problem != null) out.computeIfAbsent(key, k -> new ArrayList<>()).add(problem);
        }
        DatabaseSettings.problems(props).forEach((k, m) -> out.computeIfAbsent(k, x -> new ArrayList<>()).addAll(m));
        ColumnRules.problems(props).forEach((k, m) -> out.computeIfAbsent(k, x -> new ArrayList<>()).addAll(m));
        Object placeholder = props.get(UnavailableValue.SETTING);
        if (placeholder != null) {
            try {
                UnavailableValue.of(placeholder.toString());
            } catch (IllegalArgumentException e) {
                out.computeIfAbsent(UnavailableValue.SETTING, x -> new ArrayList<>()).add(e.getMessage());
            }
        }
        if (present(props.get(ColumnRules.KEY_COLUMNS)) && "true".equalsIgnoreCase(String.valueOf(props.get(RESELECT)).trim())) {
            out.computeIfAbsent(ColumnRules.KEY_COLUMNS, x -> new ArrayList<>()).add(ColumnRules.KEY_COLUMNS + " cannot be"
                    + " combined with " + RESELECT + ", which looks rows up by their replica identity: drop one of them");
        }
        if (present(props.get(CaptureSettings.MESSAGE_PREFIX_INCLUDE)) && present(props.get(CaptureSettings.MESSAGE_PREFIX_EXCLUDE))) {
            // Debezium refuses the pair too; its filter would use the include list alone.
            out.computeIfAbsent(CaptureSettings.MESSAGE_PREFIX_EXCLUDE, x -> new ArrayList<>()).add(CaptureSettings.MESSAGE_PREFIX_EXCLUDE
                    + " cannot be combined with " + CaptureSettings.MESSAGE_PREFIX_INCLUDE + ": keep one of them");
        }
        Object statements = props.get(DatabaseSettings.INITIAL_STATEMENTS);
        try {
            InitialStatements.parameters(statements == null ? null : statements.toString());
        } catch (IllegalArgumentException e) {
            out.computeIfAbsent(DatabaseSettings.INITIAL_STATEMENTS, x -> new ArrayList<>())
                    .add(DatabaseSettings.INITIAL_STATEMENTS + ": " + e.getMessage());
        }
        return out;
    }

    private static final String RESELECT = "reselect.unavailable.values";

    private static boolean present(Object v) {
        return v != null && !v.toString().isBlank();
    }

    /** Throws naming every refused key (start(): the same refusals as validate()). */
    public static void requireClean(Map<String, ?> props, ConfigDef def) {
        Map<String, List<String>> p = problems(props, def);
        if (!p.isEmpty()) {
            List<String> all = new ArrayList<>();
            p.values().forEach(all::addAll);
            throw new ConfigException(String.join("; ", all));
        }
    }

    /** pgrepl's keys and Debezium's plain ones (not the families of column rules). */
    private static final String DRIVER_PREFIX = "database.";

    /** {@return whether {@code key} is {@code database.} followed by another setting of the connector or of Debezium's} */
    static boolean copiedToDriver(String key, ConfigDef def) {
        if (!key.startsWith(DRIVER_PREFIX)) return false;
        String rest = key.substring(DRIVER_PREFIX.length());
        return !rest.startsWith(DRIVER_PREFIX) && known(def).contains(rest);
    }

    private static Set<String> known(ConfigDef def) {
        Set<String> k = new TreeSet<>(def.names());
        for (DebeziumSetting s : DebeziumSettings.all()) {
            if (!s.family()) k.add(s.name());
        }
        return k;
    }
}
